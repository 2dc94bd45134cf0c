import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../test/harness';
import { buildFileService } from './app';
import { RemoteIdentity } from './identity';
import { FileClient, partialMultipart } from '../../test/file-client';

/**
 * `app.close()` is what SIGTERM runs (main.ts of the gateway and of the file service): it must finish
 * promptly right after a download, and even while one is still being sent to a client that reads slowly or
 * not at all — which used to keep Node's `server.close()` waiting forever. Other calls in flight still
 * complete. The race against a timer makes a regression fail here instead of hanging the hook.
 */
async function closesWithin(app: FastifyInstance, ms = 3000, closing: Promise<unknown> = app.close()) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'still waiting'>((r) => (timer = setTimeout(() => r('still waiting'), ms)));
  const result = await Promise.race([closing.then(() => 'closed' as const), timeout]);
  clearTimeout(timer);
  expect(result, `app.close() after ${ms} ms`).toBe('closed');
}

const MiB = 1024 * 1024;

describe.each(engines)('closing the server around downloads (%s)', (engine) => {
  let t: TestApp | undefined;
  let alice: FileClient;
  let home: string;

  const start = async () => {
    t = await createTestApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const { token } = await t.app.ctx.sessions.create('u-alice');
    alice = new FileClient(`http://127.0.0.1:${port}/file-service/sz-a100/api/v1`, token);
    home = (await t.app.ctx.clusterAccounts.ensure('u-alice', 'sz-a100')).homeDir;
    return t.app;
  };
  /** A file put straight into Alice's home (the upload path is not what is tested here). */
  const place = (rel: string, bytes: Buffer) => {
    fs.mkdirSync(path.join(home, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), bytes);
  };
  afterEach(async () => {
    // Each test closed the app already (a second close resolves at once); this drops the database and data dir.
    await t?.close();
    t = undefined;
  });

  const small = randomBytes(200_000);

  describe('after a download read to the end (the last request on its keep-alive connection)', () => {
    it('POST /file/download of one file', async () => {
      const app = await start();
      expect((await alice.upload('/', 'a.bin', small)).code).toBe(0);
      const res = await alice.download(['/a.bin']);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(small);
      await closesWithin(app);
    });

    it('a Range request', async () => {
      const app = await start();
      expect((await alice.upload('/', 'a.bin', small)).code).toBe(0);
      const res = await alice.download(['/a.bin'], { range: 'bytes=100-199' });
      expect(res.status).toBe(206);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(small.subarray(100, 200));
      await closesWithin(app);
    });

    it('a zip of a directory', async () => {
      const app = await start();
      expect((await alice.upload('/d/sub', 'a.bin', small)).code).toBe(0);
      expect((await alice.upload('/d', 'b.txt', Buffer.from('b'))).code).toBe(0);
      const res = await alice.download(['/d']);
      expect(res.headers.get('content-type')).toBe('application/zip');
      expect((await res.arrayBuffer()).byteLength).toBe(Number(res.headers.get('content-length')));
      await closesWithin(app);
    });

    it('a ticket URL', async () => {
      const app = await start();
      expect((await alice.upload('/', 'a.bin', small)).code).toBe(0);
      const res = await alice.fetchTicket((await alice.downloadTicket(['/a.bin'])).data.url);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(small);
      await closesWithin(app);
    });
  });

  describe('with a download still in flight', () => {
    it('after the client aborted midway', async () => {
      const app = await start();
      place('big.bin', randomBytes(8 * MiB));
      const ac = new AbortController();
      const res = await fetch(`${alice.api}/file/download`, {
        method: 'POST',
        headers: { token: alice.token!, 'content-type': 'application/json' },
        body: JSON.stringify({ paths: ['/big.bin'] }),
        signal: ac.signal,
      });
      const reader = res.body!.getReader();
      expect((await reader.read()).value!.length).toBeGreaterThan(0);
      ac.abort();
      await expect(reader.read()).rejects.toThrow();
      await closesWithin(app);
    });

    // The cause of the old hang: a client that stops reading holds the response open through back-pressure.
    for (const [name, paths] of [
      ['a single file', ['/big.bin']],
      ['a zip', ['/tree']],
    ] as const) {
      it(`cuts ${name} whose client stopped reading, and closes the file`, async () => {
        const app = await start();
        // Large enough that the server blocks in the middle of a file (files are read 1 MiB at a time).
        place('big.bin', randomBytes(32 * MiB));
        place('tree/one.bin', randomBytes(32 * MiB));
        place('tree/two.bin', randomBytes(32 * MiB));
        const res = await alice.download([...paths]);
        expect(res.status).toBe(200);
        const reader = res.body!.getReader();
        expect((await reader.read()).value!.length).toBeGreaterThan(0);
        // Give the server time to fill the socket buffers and block on the file stream.
        await new Promise((r) => setTimeout(r, 300));
        const before = openFilesUnder(home);
        expect(before).toBeGreaterThan(0);
        await closesWithin(app);
        // The client sees a cut-off download (it would resume with a Range request), not a complete one.
        await expect(drain(reader)).rejects.toThrow();
        await waitFor(() => openFilesUnder(home) === 0);
      });
    }

    it('cuts a ticket download whose client stopped reading', async () => {
      const app = await start();
      place('big.bin', randomBytes(8 * MiB));
      const res = await alice.fetchTicket((await alice.downloadTicket(['/big.bin'])).data.url);
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      await closesWithin(app);
      await expect(res.arrayBuffer()).rejects.toThrow();
    });
  });

  it('still lets an upload in flight complete before closing (only downloads are cut)', async () => {
    const app = await start();
    const bytes = randomBytes(64 * 1024);
    const upload = partialMultipart(`${alice.api}/file/upload`, alice.token!, { path: '/' }, 'late.bin', bytes, 1000);
    await upload.sent;
    let closed = false;
    const closing = app.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(closed).toBe(false);
    upload.finish();
    expect(await upload.answer).toMatchObject({ code: 0 });
    await closesWithin(app, 3000, closing);
    expect(fs.readFileSync(path.join(home, 'late.bin'))).toEqual(bytes);
  });

  it('closes the standalone file service (buildFileService) with a download in flight', async () => {
    const gateway = await start();
    const gatewayUrl = `http://127.0.0.1:${(gateway.server.address() as { port: number }).port}`;
    const center = gateway.ctx.centers.find((c) => c.id === 'sz-a100')!;
    const app = await buildFileService({ center, identity: new RemoteIdentity({ gatewayUrl, center, clock: Date.now }) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const c = new FileClient(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1`, alice.token);
    place('big.bin', randomBytes(8 * MiB));
    const done = await c.download(['/a-missing-file']);
    expect((await done.json()).message.code).toBe(1301);
    const stalled = await c.download(['/big.bin']);
    expect(stalled.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    await closesWithin(app);
    await expect(stalled.arrayBuffer()).rejects.toThrow();
    await closesWithin(gateway);
  });
});

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>) {
  for (;;) if ((await reader.read()).done) return;
}

async function waitFor(cond: () => boolean, ms = 3000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Descriptors of this process open on files under `dir` (Linux /proc). */
function openFilesUnder(dir: string): number {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir + path.sep)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}
