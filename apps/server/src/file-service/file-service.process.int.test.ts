import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../test/harness';
import { listeningPort, startProcess, stopProcess } from '../../test/process';
import { FileClient, sha256 } from '../../test/file-client';
import { serverEntryArgs } from '../../test/server-bundle';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');

/** The standalone file service (`file-service/main.ts`) in its own OS process; resolves with its port. */
async function startFileService(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const { child, info } = await startProcess(process.execPath, await serverEntryArgs('file-service/main.ts'), {
    cwd: repoRoot,
    env,
    ready: listeningPort,
  });
  return { child, port: info };
}

/**
 * Production shape: the gateway in this process on a real port, the file service of one center as a
 * separate OS process that knows users only through the gateway (RemoteIdentity, 4 s positive cache).
 */
describe.each(engines)('standalone file service process (%s)', (engine) => {
  let t: TestApp;
  let fsProc: { child: ChildProcess; port: number };
  let gatewayUrl: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    gatewayUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    fsProc = await startFileService({
      CENTER_ID: 'sz-a100',
      CENTERS_FILE: t.config.centersFile,
      DATA_DIR: t.dataDir,
      GATEWAY_URL: gatewayUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    if (fsProc) await stopProcess(fsProc.child);
    await t.close();
  });

  const remote = (token?: string) => new FileClient(`http://127.0.0.1:${fsProc.port}/api/v1`, token);

  it('serves a gateway-issued login: upload, chunked upload, list and download through the separate process', async () => {
    const { token } = await t.app.ctx.sessions.create('u-remote');
    const c = remote(token);
    const small = Buffer.from('小文件内容');
    expect((await c.upload('/in', '说明.txt', small)).code).toBe(0);

    const big = randomBytes(3 * 64 * 1024 + 123);
    const id = randomBytes(16).toString('hex');
    const { totalChunks, results } = await c.chunks(id, '/in', 'big.bin', big, 64 * 1024);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const merged = await c.merge({ identifier: id, filename: 'big.bin', path: '/in', totalChunks, totalSize: big.length, hash: sha256(big) });
    expect(merged.code).toBe(0);

    const listed = await c.list('/in');
    expect(listed.data.list.map((e: any) => [e.name, e.size])).toEqual([
      ['big.bin', big.length],
      ['说明.txt', small.length],
    ]);
    const dl = await c.download(['/in/big.bin']);
    expect(sha256(Buffer.from(await dl.arrayBuffer()))).toBe(sha256(big));
    // A download ticket's URL works on this process without any token header.
    const ticket = await c.downloadTicket(['/in/big.bin']);
    expect(ticket.code).toBe(0);
    expect(sha256(Buffer.from(await (await remote().fetchTicket(ticket.data.url)).arrayBuffer()))).toBe(sha256(big));

    // The files are in the home of the cluster account the gateway provisioned for this user.
    const account = (await t.app.ctx.clusterAccounts.list('u-remote', 'sz-a100'))[0];
    expect(fs.readFileSync(path.join(account.homeDir, 'in', '说明.txt'), 'utf8')).toBe('小文件内容');
    expect(sha256(fs.readFileSync(path.join(account.homeDir, 'in', 'big.bin')))).toBe(sha256(big));
  });

  it('refuses unknown and expired tokens with the gateway’s codes', async () => {
    expect((await remote().list('/')).code).toBe(10133);
    expect((await remote('forged-token').list('/')).code).toBe(10133);
    const s = await t.app.ctx.sessions.create('u-expiring');
    t.clock.advance(31 * 60_000);
    try {
      expect((await remote(s.token).list('/')).code).toBe(10157);
    } finally {
      t.clock.advance(-31 * 60_000);
    }
  });

  it('stops honouring a revoked session within 5 s, and the download tickets it issued', async () => {
    const s = await t.app.ctx.sessions.create('u-revoke');
    const c = remote(s.token);
    expect((await c.list('/')).code).toBe(0);
    expect((await c.upload('/', 'r.txt', Buffer.from('r'))).code).toBe(0);
    const { url } = (await c.downloadTicket(['/r.txt'])).data;
    expect(await (await c.fetchTicket(url)).text()).toBe('r');
    await t.app.ctx.sessions.revoke(s.sessionId, 'logout');
    const revokedAt = Date.now();
    let code = 0;
    while (Date.now() - revokedAt < 7_000) {
      code = (await c.list('/')).code;
      if (code !== 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(code).toBe(10307);
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(5_000);
    const refused = await c.fetchTicket(url);
    expect(refused.status).toBe(401);
    expect((await refused.json()).message.code).toBe(10307);
  });
});
