// bench/ws's handle on the gateway process it measures (loaded by support/gateway.ts with BENCH_WS_USERS):
// N users with one session each, and a loopback-only control server that is no part of the app — the
// broadcast runs inside the gateway through the same ctx.notify every module calls, not a production route.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { WS_UNREAD_INCREMENT } from '@suanli/contracts';
import { EVERYONE } from '../../apps/server/src/realtime/bus';

export const wsUserId = (i: number) => `ws-user-${i}`;

/** Wall clock with sub-millisecond resolution, comparable across processes of one machine. */
export const nowMs = () => performance.timeOrigin + performance.now();

export async function startWsControl(app: FastifyInstance, users: number, dataDir: string) {
  const tokens: string[] = [];
  for (let i = 0; i < users; i++) tokens.push((await app.ctx.sessions.create(wsUserId(i))).token);
  const tokensFile = path.join(dataDir, 'ws-tokens.txt');
  fs.writeFileSync(tokensFile, tokens.join('\n'));
  let round = 0;

  const server = http.createServer((req, res) => {
    const answer = (body: unknown) => res.setHeader('content-type', 'application/json').end(JSON.stringify(body));
    const fail = (err: unknown) => ((res.statusCode = 500), answer({ error: String(err) }));
    if (req.url === '/stats') {
      const m = process.memoryUsage();
      return answer({ ...app.wsHub.stats(), rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
    }
    if (req.url === '/gc' && req.method === 'POST') {
      (globalThis as { gc?: () => void }).gc?.();
      return answer({ gc: typeof (globalThis as { gc?: unknown }).gc === 'function' });
    }
    const broadcast = /^\/broadcast\?mode=(notify|notifyEach|bus|everyone)$/.exec(req.url ?? '');
    if (broadcast && req.method === 'POST') {
      round++;
      const message = { type: 'system' as const, title: `系统通知 ${round}`, content: '基准测试广播' };
      const ids = Array.from({ length: users }, (_, i) => wsUserId(i));
      const startedAt = nowMs();
      const start = performance.now();
      const cpu = process.cpuUsage();
      const run = async () => {
        switch (broadcast[1]) {
          case 'notify': // one notify per user, in order: each a transaction of its own
            for (const id of ids) await app.ctx.notify(id, message);
            return;
          case 'notifyEach': // the announcement path: stored in batches, each batch pushed after its commit
            return app.ctx.notifyEach(ids, message);
          case 'everyone': // the product's broadcast (a center's status notice, the resource samples): one event to every socket
            return app.ctx.bus.publish(EVERYONE, { businessType: WS_UNREAD_INCREMENT, data: { count: 1 } });
          case 'bus': // the realtime module alone: the push of each user's event, nothing stored
            for (const id of ids) await app.ctx.bus.publish(id, { businessType: WS_UNREAD_INCREMENT, data: { count: 1 } });
            return;
        }
      };
      run().then(() => {
        const { user, system } = process.cpuUsage(cpu);
        answer({ startedAt, notifyMs: performance.now() - start, userCpuMs: user / 1000, systemCpuMs: system / 1000 });
      }, fail);
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  server.unref(); // the gateway's own server keeps the process alive; SIGTERM ends both
  return { tokensFile, controlPort: (server.address() as { port: number }).port };
}
