// bench/metering: one metering pass (ADR 0015) over 10,000 running tasks — budget ≤ 2 s per pass.
// The gateway is built in this process on a temp data dir (SQLite) or a throwaway PostgreSQL database, its
// poller never started (the app is never made ready): the tasks are rows written straight into `tasks`, as
// the engine stores running tasks, 5 per owner across 2,000 owners who each hold one bucket on the card type.
// Passes, each timed and its rows counted:
//   first   — every task seen for the first time: 10,000 meters created, 10,000 records inserted
//   steady  — one period later (the app clock moved 60 s): 10,000 meters advanced, records grown
//   final   — every task ended 30 s later: the final draws
// Run: npm run metering -w bench                SQLite (the embedded default)
//      npm run metering -w bench -- --pg        PostgreSQL on BENCH_DATABASE_URL's server
//      npm run metering -w bench -- --both      both
// Writes bench/results/metering.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../apps/server/src/app';
import type { Config } from '../apps/server/src/config';
import { newId } from '../apps/server/src/lib/id';
import { createPgDatabase } from '../apps/server/test/harness';

const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const PER_OWNER = 5;
const BUDGET_MS = 2000;
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const repoRoot = path.resolve(import.meta.dirname, '..');

const flags = new Set(process.argv.slice(2));
const engines = flags.has('--both') ? (['sqlite', 'postgres'] as const) : flags.has('--pg') ? (['postgres'] as const) : (['sqlite'] as const);

interface PassLine {
  pass: string;
  ms: number;
  tasks: number;
  metered: number;
  cardSeconds: number;
  meterRows: number;
  recordRows: number;
  bucketsDrawn: number;
}

async function run(engine: 'sqlite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-bench-metering-'));
  const pg = engine === 'postgres' ? await createPgDatabase(PG_SERVER) : null;
  let now = Date.now();
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    publicUrl: 'http://127.0.0.1',
    dataDir,
    databaseUrl: pg?.url,
    centersFile: path.join(repoRoot, 'config/centers.yaml'),
    trustProxy: false,
    allowedOrigins: [],
    mail: { kind: 'outbox' },
    rateLimit: { max: 1_000_000, timeWindowMs: 60_000 },
    clock: () => now,
    logLevel: 'warn',
    seedDemo: false,
    metering: {},
  };
  const app = await buildApp(config);
  const db = app.ctx.db;
  try {
    const start = now - 30_000;
    const owners = Math.ceil(TASKS / PER_OWNER);
    const seedStart = performance.now();
    for (let o = 0; o < owners; o += 500) {
      const rows = [];
      for (let i = o; i < Math.min(owners, o + 500); i++) {
        rows.push({ id: newId(now), owner_id: `bench-owner-${i}`, sub_center_id: 'sz-a100', card_type_id: 'a100-80g', granted: 1_000 * 3600, remaining: 1_000 * 3600, expire_time: now + 365 * 86_400_000, source: 'order', create_time: now });
      }
      await db.insertInto('comp_power_buckets').values(rows).execute();
    }
    for (let t = 0; t < TASKS; t += 500) {
      const rows = [];
      for (let i = t; i < Math.min(TASKS, t + 500); i++) {
        const id = newId(now);
        rows.push({
          id,
          owner_id: `bench-owner-${Math.floor(i / PER_OWNER)}`,
          kind: 'training',
          type: 'train',
          name: `计量基准 ${i}`,
          sub_center_id: 'sz-a100',
          placement_reason: '',
          account: 'szu0001',
          card_type_id: 'a100-80g',
          card_num: 1 + (i % 8),
          node_num: 1,
          image_id: '',
          command: 'sleep 3600',
          work_dir: '/',
          env: '[]',
          max_duration_min: 120,
          template_id: null,
          params: null,
          mounts: '[]',
          state: 'RUNNING',
          reason: '',
          estimated_start: null,
          job_id: `local-${i}`,
          exit_code: null,
          log_path: `/suanli-${id}.log`,
          submit_attempts: 1,
          create_time: start,
          update_time: start,
          start_time: start,
          end_time: null,
          expiry_warned: 0,
          waiting_data: 0,
          exec_host: '127.0.0.1',
          client_request_id: null,
        });
      }
      await db.insertInto('tasks').values(rows).execute();
    }
    // What autovacuum does to freshly loaded tables soon after.
    if (engine === 'postgres') await sql`VACUUM ANALYZE`.execute(db);
    const seedMs = Math.round(performance.now() - seedStart);

    const count = async (table: 'task_meters' | 'consume_records') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const lines: PassLine[] = [];
    const pass = async (name: string) => {
      const before = new Map((await db.selectFrom('comp_power_buckets').select(['id', 'remaining']).execute()).map((b) => [b.id, Number(b.remaining)]));
      const t0 = performance.now();
      const r = await app.metering.pass('sz-a100');
      const ms = Math.round(performance.now() - t0);
      const after = await db.selectFrom('comp_power_buckets').select(['id', 'remaining']).execute();
      const line: PassLine = {
        pass: name,
        ms,
        tasks: r.tasks,
        metered: r.metered,
        cardSeconds: r.drawn,
        meterRows: await count('task_meters'),
        recordRows: await count('consume_records'),
        bucketsDrawn: after.filter((b) => Number(b.remaining) !== before.get(b.id)).length,
      };
      lines.push(line);
      console.log(`${engine.padEnd(8)} ${name.padEnd(7)} ${String(ms).padStart(6)} ms  tasks ${line.tasks}  metered ${line.metered}  card-s ${line.cardSeconds}  meters ${line.meterRows}  records ${line.recordRows}  buckets drawn ${line.bucketsDrawn}`);
    };
    await pass('first');
    now += 60_000;
    await pass('steady');
    now += 60_000;
    await pass('steady');
    // Every task ends 30 s later (as the poller would store it: terminal with the scheduler's end).
    now += 30_000;
    await db.updateTable('tasks').set({ state: 'SUCCEEDED', end_time: now, update_time: now }).execute();
    await pass('final');
    // Check: each task drew its cards × its whole runtime, exactly.
    const bad = await db
      .selectFrom('task_meters')
      .select(['task_id', 'drawn', 'metered'])
      .where((eb) => eb.or([eb('settled', '=', 0), eb('metered', '<>', Math.floor((now - start) / 1000))]))
      .execute();
    if (bad.length) throw new Error(`${bad.length} meters not settled at the runtime`);
    return { engine, tasks: TASKS, owners, seedMs, budgetMs: BUDGET_MS, passes: lines, withinBudget: lines.every((l) => l.ms <= BUDGET_MS) };
  } finally {
    await app.close();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10 });
  }
}

const results = [];
for (const e of engines) results.push(await run(e));
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, 'results', 'metering.json'), JSON.stringify({ time: new Date().toISOString(), results }, null, 2));
for (const r of results) console.log(`${r.engine}: ${r.withinBudget ? 'within' : 'OVER'} the ${BUDGET_MS} ms budget (seed ${r.seedMs} ms)`);
