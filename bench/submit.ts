// bench/submit: N Slurm task submissions through the API (custom script, one after another, over real HTTP)
// ÷ a bare `sbatch` loop of the same script, account and partition against the same real cluster, alternating
// rounds (budget ≥ 0.8); then a burst with slurmctld frozen (SIGSTOP) for 15 s in the middle, after which every
// task must have exactly one Slurm job (budget: zero duplicates, zero lost).
// Run: npm run submit -w bench   (root, Slurm packages from scripts/provision.sh; writes bench/results/submit.json)
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SLURM_BASE } from '@suanli/contracts';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { writeSlurmCentersFile } from '../apps/server/test/slurm-centers';
import { startSlurmHarness, stopSlurmHarness } from '../apps/server/test/slurm-harness';

const N = Number(process.env.BENCH_SUBMITS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BURST = Number(process.env.BENCH_BURST ?? 120);
const FREEZE_MS = Number(process.env.BENCH_FREEZE_MS ?? 15_000);
const run = promisify(execFile);
const log = (m: string) => console.error(`[submit-bench ${new Date().toISOString().slice(11, 19)}] ${m}`);

const h = await startSlurmHarness();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-bench-submit-'));
const cluster = h.clusters[0];
const env = { ...process.env, SLURM_CONF: cluster.slurmConf };
try {
  const centersFile = writeSlurmCentersFile(h, dir);
  const config = {
    ...loadConfig({ ...process.env, DATA_DIR: dir, CENTERS_FILE: centersFile, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false' }),
    rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 },
  };
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}${SLURM_BASE}`;
  const userId = 'bench-submit';
  const { token } = await app.ctx.sessions.create(userId);
  const acc = await app.ctx.clusterAccounts.ensure(userId, 'slurm-a');
  const work = path.join(acc.homeDir, 'bench');
  fs.mkdirSync(work, { recursive: true });
  fs.chownSync(work, acc.uid, acc.uid);
  const script = '#!/bin/bash\ntrue\n';
  const jobFile = path.join(work, 'job.sh');
  fs.writeFileSync(jobFile, script);

  const submitApi = async (name: string) => {
    const res = await fetch(`${base}/tasks`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ name, type: 'custom', script, subCenterId: 'slurm-a', cardTypeId: 'a100-80g', cardNum: 0, nodeNum: 1, workDir: '/bench', env: [], maxDurationMinutes: 5 }),
    }).then((r) => r.json());
    if (res.message.code !== 0) throw new Error(`submit refused: ${res.message.code} ${res.message.message}`);
    return res.data as { id: string; state: string; jobId: string | null };
  };
  // The same job by hand: root submits for the account, as an operator's script would.
  const submitBare = (i: number) =>
    run('sbatch', ['--uid', acc.account, '--gid', acc.account, '-p', cluster.partitions[0], '-J', `bare-${i}`, '-o', '/dev/null', '-D', work, '-t', '5', jobFile], { env });
  const cancelAll = () => execFileSync('scancel', ['-u', acc.account], { env });

  // Warm-up (JIT, connection, token cache).
  for (let i = 0; i < 20; i++) await submitApi(`warm-${i}`);
  for (let i = 0; i < 20; i++) await submitBare(i);
  cancelAll();

  const rounds: { bareSec: number; apiSec: number; ratio: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    for (let i = 0; i < N; i++) await submitBare(i);
    const bareSec = (performance.now() - t) / 1000;
    cancelAll();
    t = performance.now();
    for (let i = 0; i < N; i++) await submitApi(`bench-${r}-${i}`);
    const apiSec = (performance.now() - t) / 1000;
    cancelAll();
    rounds.push({ bareSec: Number(bareSec.toFixed(2)), apiSec: Number(apiSec.toFixed(2)), ratio: Number((bareSec / apiSec).toFixed(3)) });
    log(`round ${r + 1}/${ROUNDS}: ${N} × sbatch ${bareSec.toFixed(1)} s, ${N} × API ${apiSec.toFixed(1)} s (ratio ${(bareSec / apiSec).toFixed(3)})`);
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];

  // Freeze slurmctld in the middle of a burst (4 submitters): timed-out submits stay SUBMITTING and the
  // poller retries them; afterwards every task must own exactly one job.
  const pid = Number(fs.readFileSync(/SlurmctldPidFile=(\S+)/.exec(fs.readFileSync(cluster.slurmConf, 'utf8'))![1], 'utf8'));
  const ids: string[] = [];
  let next = 0;
  let frozen = false;
  const worker = async () => {
    while (next < BURST) {
      const i = next++;
      if (i === Math.floor(BURST / 3) && !frozen) {
        frozen = true;
        process.kill(pid, 'SIGSTOP');
        log(`slurmctld frozen for ${FREEZE_MS / 1000} s`);
        setTimeout(() => process.kill(pid, 'SIGCONT'), FREEZE_MS);
      }
      ids.push((await submitApi(`burst-${i}`)).id);
    }
  };
  const burstStart = performance.now();
  await Promise.all([worker(), worker(), worker(), worker()]);
  // Settled: no task still waiting for its job.
  for (let i = 0; i < 240; i++) {
    const waiting = await app.ctx.db.selectFrom('tasks').select('id').where('state', '=', 'SUBMITTING').execute();
    if (!waiting.length) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const burstSec = (performance.now() - burstStart) / 1000;
  // Accounting may lag the controller by a few seconds: read until it stops changing.
  let counts = new Map<string, number>();
  for (let i = 0, last = -1; i < 30; i++) {
    const out = execFileSync('sacct', ['-X', '-n', '-P', '-a', '-M', cluster.cluster, '-S', 'now-1hours', '-o', 'JobName'], { env, encoding: 'utf8' });
    counts = new Map();
    for (const name of out.split('\n')) if (name.startsWith('suanli-')) counts.set(name.slice(7), (counts.get(name.slice(7)) ?? 0) + 1);
    const total = ids.reduce((s, id) => s + (counts.get(id) ?? 0), 0);
    if (total === last && total >= ids.length) break;
    last = total;
    await new Promise((r) => setTimeout(r, 2000));
  }
  const duplicates = ids.reduce((s, id) => s + Math.max(0, (counts.get(id) ?? 0) - 1), 0);
  const lost = ids.filter((id) => !counts.get(id)).length;
  const states = await app.ctx.db.selectFrom('tasks').select(['state', 'submit_attempts']).where('id', 'in', ids).execute();
  const submitFailed = states.filter((s) => s.state === 'SUBMIT_FAILED').length;
  // Tasks whose first attempt failed (timed out against the frozen controller) and were submitted again.
  const retried = states.filter((s) => s.submit_attempts > 1).length;
  cancelAll();
  await app.close();

  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
    method: `${ROUNDS} alternating rounds of ${N} sequential submissions (bare sbatch --uid, then the API over HTTP), median ratio`,
    submissions: N,
    rounds,
    bareSec: median.bareSec,
    apiSec: median.apiSec,
    ratio: median.ratio,
    freeze: { burst: BURST, submitters: 4, frozenSec: FREEZE_MS / 1000, settledSec: Number(burstSec.toFixed(1)), retried, duplicates, lost, submitFailed },
    budget: { ratio: 0.8, duplicates: 0 },
  };
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(import.meta.dirname, 'results/submit.json'), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
} finally {
  stopSlurmHarness(h);
  fs.rmSync(dir, { recursive: true, force: true });
}
