// A gateway on the embedded default (SQLite in a temp dir, or BENCH_DATA_DIR) for benchmarks: prints
// {port, token} once ready. CONSOLE_DIST (default apps/console/dist) is served when built.
// The session and messages are created through the services every module uses, so the benchmark measures
// the real authenticated route (token lookup + indexed COUNT) without depending on the sign-up flow.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../apps/server/src/app';
import { loadConfig } from '../../apps/server/src/config';
import { seedDemo } from '../../apps/server/src/seed';

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
for (let i = 0; i < 200; i++) {
  await app.ctx.notify(userId, { type: 'system', title: `消息 ${i}`, content: '基准测试消息' });
}
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port, token }));
process.on('SIGTERM', () => {
  app.close().finally(() => {
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
