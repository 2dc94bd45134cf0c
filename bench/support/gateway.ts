// A gateway on the embedded default (SQLite in a temp dir, or BENCH_DATA_DIR; PostgreSQL when DATABASE_URL
// is set) for benchmarks: prints {port, token, seedMs} once ready. CONSOLE_DIST (default apps/console/dist)
// is served when built.
// The session and messages are created through the services every module uses, so the benchmark measures
// the real authenticated route (token lookup + indexed COUNT) without depending on the sign-up flow.
// BENCH_LIST_SEED=1 bulk-loads the 100k-row message table of bench/list (support/list-seed.ts) instead of
// bench/api's 200 messages.
// BENCH_WS_USERS=N (bench/ws) skips both: it creates N users' sessions, writes their tokens (one per line) to
// `tokensFile`, and starts a bench-only control server on loopback (`controlPort`, never part of the app):
// GET /stats (hub counts, memory), POST /gc, POST /broadcast?mode=… (one system notice to every one of the
// N users, timed from the trigger's start; see support/ws-control.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../apps/server/src/app';
import { loadConfig } from '../../apps/server/src/config';
import { seedDemo } from '../../apps/server/src/seed';
import { seedListMessages } from './list-seed';
import { startWsControl } from './ws-control';

const ownDir = !process.env.BENCH_DATA_DIR;
const dataDir = process.env.BENCH_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-bench-'));
const config = {
  ...loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false' }),
  // The per-IP limit would otherwise cap the load generator; the plugin still runs on every request.
  rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 },
};
const app = await buildApp(config);
// bench/bundle signs in through the login page with the demo account.
if (process.env.BENCH_SEED_DEMO === '1') await seedDemo(app);
const userId = 'bench-user';
const { token } = await app.ctx.sessions.create(userId);
const seedStart = performance.now();
const wsUsers = Number(process.env.BENCH_WS_USERS ?? 0);
let ws: { tokensFile: string; controlPort: number } | undefined;
if (wsUsers > 0) ws = await startWsControl(app, wsUsers, dataDir);
else if (process.env.BENCH_LIST_SEED === '1') await seedListMessages(app.ctx, userId);
else {
  for (let i = 0; i < 200; i++) {
    await app.ctx.notify(userId, { type: 'system', title: `消息 ${i}`, content: '基准测试消息' });
  }
}
const seedMs = Math.round(performance.now() - seedStart);
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port, token, seedMs, ...ws }));
process.on('SIGTERM', () => {
  app.close().finally(() => {
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
