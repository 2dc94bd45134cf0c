import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WS_PATH } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../test/harness';
import { buildFileService } from '../file-service/app';
import { RemoteIdentity } from '../file-service/identity';
import { FileClient } from '../../test/file-client';
import { connect, wsUrl } from '../../test/ws-client';
import { REDACTED, redactUrl } from './log';

/** Collects everything a logger writes. */
function capture() {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Pino writes asynchronously to its stream; give the last lines a moment. */
const settle = () => new Promise((r) => setTimeout(r, 100));

describe('redactUrl', () => {
  it('hides secret query values and download tickets, keeps everything else', () => {
    expect(redactUrl('/gateway/ws?token=abc.def')).toBe(`/gateway/ws?token=${REDACTED}`);
    expect(redactUrl('/x?path=%2Fa&TOKEN=1&b')).toBe(`/x?path=%2Fa&TOKEN=${REDACTED}&b`);
    expect(redactUrl('/x?%74oken=1')).toBe(`/x?%74oken=${REDACTED}`);
    expect(redactUrl('/file-service/sz/api/v1/file/download/t/AbC_-123?x=1')).toBe(`/file-service/sz/api/v1/file/download/t/${REDACTED}?x=1`);
    expect(redactUrl('/gateway/user/api/v1/user')).toBe('/gateway/user/api/v1/user');
  });
});

/** Issue 7's probe: live credentials in the server log. */
describe.each(engines)('the server log never holds a live credential (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  const log = capture();

  beforeAll(async () => {
    t = await createTestApp(engine, { logLevel: 'info', logStream: log.stream });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it('logs the socket handshake and a download ticket URL without the token or the ticket', async () => {
    const { token } = await t.app.ctx.sessions.create('u-log-a');
    const socket = await connect(wsUrl(Number(new URL(origin).port), token));
    socket.ws.close();
    await socket.closed;

    const home = (await t.app.ctx.clusterAccounts.ensure('u-log-a', 'sz-a100')).homeDir;
    fs.writeFileSync(path.join(home, 'a.txt'), 'hello');
    const files = new FileClient(`${origin}/file-service/sz-a100/api/v1`, token);
    const issued = await files.downloadTicket(['/a.txt']);
    expect(issued.code).toBe(0);
    const ticket = issued.data.url.split('/').pop()!;
    const res = await files.fetchTicket(issued.data.url);
    expect(await res.text()).toBe('hello');
    await settle();

    const text = log.text();
    // The requests were logged (so the check below means something)…
    expect(text).toContain(`${WS_PATH}?token=${REDACTED}`);
    expect(text).toContain(`/file/download/t/${REDACTED}`);
    // …and neither credential was.
    expect(text).not.toContain(token);
    expect(text).not.toContain(encodeURIComponent(token));
    expect(text).not.toContain(ticket);
  });

  it('the standalone file service logs ticket URLs and token parameters redacted too', async () => {
    const center = t.app.ctx.centers.find((c) => c.id === 'sz-a100')!;
    const own = capture();
    const fsApp = await buildFileService({
      center,
      identity: new RemoteIdentity({ gatewayUrl: origin, center, clock: Date.now }),
      logger: { level: 'info', stream: own.stream },
    });
    try {
      const ticket = 'T'.repeat(43);
      await fsApp.inject({ method: 'GET', url: `/api/v1/file/download/t/${ticket}` });
      await fsApp.inject({ method: 'GET', url: '/api/v1/usage?token=secret-token-value' });
      await settle();
      const text = own.text();
      expect(text).toContain(`/file/download/t/${REDACTED}`);
      expect(text).not.toContain(ticket);
      expect(text).not.toContain('secret-token-value');
    } finally {
      await fsApp.close();
    }
  });
});
