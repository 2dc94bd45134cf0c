// bench/freshness: how long after a Slurm job really changes state its owner's socket hears of it
// (budget: p95 ≤ 3 s), with the default poll interval and a crowd of open consoles that must not add
// scheduler calls. Each job prints a millisecond timestamp as its first line (it started) and ends right after
// printing a second one (it is about to end); the delay is the socket event's arrival minus that stamp, so
// Slurm's own bookkeeping (accounting, one-second times) is part of what is measured.
// Run: npm run freshness -w bench   (root, Slurm packages; writes bench/results/freshness.json)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TRAINING_BASE } from '@suanli/contracts';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { writeSlurmCentersFile } from '../apps/server/test/slurm-centers';
import { startSlurmHarness, stopSlurmHarness } from '../apps/server/test/slurm-harness';
import { connect, wsUrl, type TestSocket } from '../apps/server/test/ws-client';

const JOBS = Number(process.env.BENCH_JOBS ?? 30);
const CONSOLES = Number(process.env.BENCH_CONSOLES ?? 200);
const log = (m: string) => console.error(`[freshness-bench ${new Date().toISOString().slice(11, 19)}] ${m}`);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const h = await startSlurmHarness();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-bench-fresh-'));
try {
  const centersFile = writeSlurmCentersFile(h, dir);
  const config = {
    ...loadConfig({ ...process.env, DATA_DIR: dir, CENTERS_FILE: centersFile, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false' }),
    rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 },
  };
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  config.allowedOrigins.push(`http://127.0.0.1:${port}`);
  const userId = 'bench-fresh';
  const { token } = await app.ctx.sessions.create(userId);
  const acc = await app.ctx.clusterAccounts.ensure(userId, 'slurm-a');
  const work = path.join(acc.homeDir, 'fresh');
  fs.mkdirSync(work, { recursive: true });
  fs.chownSync(work, acc.uid, acc.uid);

  // Open consoles (each its own session): the poller's cost must not grow with them.
  const crowd: TestSocket[] = [];
  for (let i = 0; i < CONSOLES; i++) {
    const s = await app.ctx.sessions.create(`bench-viewer-${i}`);
    crowd.push(await connect(wsUrl(port, s.token)));
  }
  const sock = await connect(wsUrl(port, token));
  const arrivals = new Map<string, number>();
  sock.ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    if (m.businessType === 'task.state.changed') arrivals.set(`${m.data.taskId}:${m.data.state}`, Date.now());
  });
  // Count scheduler calls: every executor call of the center goes through its states().
  const executor = app.tasks.executors.get('slurm-a')!;
  let statesCalls = 0;
  const states = executor.states.bind(executor);
  executor.states = (jobs) => {
    statesCalls++;
    return states(jobs);
  };

  const ids: string[] = [];
  const t0 = Date.now();
  for (let i = 0; i < JOBS; i++) {
    const res = await fetch(`http://127.0.0.1:${port}${TRAINING_BASE}/tasks`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `fresh-${i}`,
        type: 'train',
        subCenterId: 'slurm-a',
        cardTypeId: 'a100-80g',
        cardNum: 1,
        nodeNum: 1,
        imageId: 'pytorch-2.3-cuda12',
        command: `echo start=$(date +%s%3N); sleep ${1 + (i % 3)}; echo end=$(date +%s%3N)`,
        workDir: '/fresh',
        env: [],
        maxDurationMinutes: 5,
      }),
    }).then((r) => r.json());
    if (res.message.code !== 0) throw new Error(`submit refused: ${res.message.message}`);
    ids.push(res.data.id);
    await new Promise((r) => setTimeout(r, 700));
  }
  // Wait until every task ended (the socket says so).
  for (let i = 0; i < 600 && !ids.every((id) => arrivals.has(`${id}:SUCCEEDED`)); i++) await new Promise((r) => setTimeout(r, 250));
  const elapsed = (Date.now() - t0) / 1000;
  const startDelays: number[] = [];
  const endDelays: number[] = [];
  for (const id of ids) {
    const out = fs.readFileSync(path.join(work, `suanli-${id}.log`), 'utf8');
    const start = Number(/start=(\d+)/.exec(out)?.[1]);
    const end = Number(/end=(\d+)/.exec(out)?.[1]);
    const running = arrivals.get(`${id}:RUNNING`);
    const done = arrivals.get(`${id}:SUCCEEDED`);
    if (running && start) startDelays.push(Math.max(0, running - start));
    if (done && end) endDelays.push(done - end);
  }
  const all = [...startDelays, ...endDelays];
  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
    method: `${JOBS} jobs of 1–3 s on one real Slurm cluster, ${CONSOLES + 1} consoles connected; delay = socket event arrival − the job's own millisecond stamp (start: RUNNING event; end: SUCCEEDED event − the last line printed)`,
    pollIntervalMs: 1000,
    jobs: JOBS,
    measured: { running: startDelays.length, succeeded: endDelays.length },
    runningMs: { p50: pct(startDelays, 50), p95: pct(startDelays, 95), max: Math.max(...startDelays) },
    succeededMs: { p50: pct(endDelays, 50), p95: pct(endDelays, 95), max: Math.max(...endDelays) },
    allMs: { p50: pct(all, 50), p95: pct(all, 95) },
    schedulerStateCalls: statesCalls,
    statesCallsPerSecond: Number((statesCalls / elapsed).toFixed(2)),
    budget: { p95Ms: 3000 },
  };
  for (const s of [...crowd, sock]) s.ws.close();
  await app.close();
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(import.meta.dirname, 'results/freshness.json'), JSON.stringify(result, null, 2));
  log(`p95 ${result.allMs.p95} ms over ${all.length} state changes; ${result.statesCallsPerSecond} scheduler calls/s with ${CONSOLES + 1} consoles`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  stopSlurmHarness(h);
  fs.rmSync(dir, { recursive: true, force: true });
}
