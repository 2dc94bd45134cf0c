import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, TRAINING_BASE, type JobState } from '@suanli/contracts';
import { createPgDatabase, createTestApp, type TestApp } from '../../../test/harness';
import { startGateway, stopProcess } from '../../../test/process';
import { sleep } from '../../../test/metering';
import { newId } from '../../lib/id';

const TASKS = 20;

/**
 * Acceptance 2 of issue 19 on the local executor: the gateway process is SIGKILLed while 20 tasks run; they end
 * while it is down. After a restart every task's draws equal its accounted runtime × its cards — nothing lost,
 * nothing doubled — while a second gateway (this test process, on the same PostgreSQL) keeps metering the
 * same tasks at the same time, before and after the restarted one has polled their ends.
 */
describe('metering across a gateway killed while tasks run (local executor, PostgreSQL)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-meter-fault-'));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let h: TestApp;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    // The second gateway: same database, its own data dir; never made ready, so it never polls (its executor
    // does not know the jobs) — it only meters, as a replica would.
    h = await createTestApp('postgres', { databaseUrl: pgDb.url, clock: Date.now, metering: { periodMs: 1000 } });
    env = {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: pgDb.url,
      DATA_DIR: dir,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      TASK_POLL_MS: '500',
      TASK_LEASE_MS: '3000',
      METERING_PERIOD_MS: '1000',
      WELCOME_GRANT_CARD_HOURS: '0',
    };
  });
  afterAll(async () => {
    await h?.close();
    await pgDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('after a SIGKILL and a restart every task has drawn exactly cards × its runtime', async () => {
    const db = h.app.ctx.db;
    const userId = 'u-meter-fault';
    const { token } = await h.app.ctx.sessions.create(userId);
    const granted = 100 * 3600;
    const bucket = newId();
    const now = Date.now();
    await db
      .insertInto('comp_power_buckets')
      .values({ id: bucket, owner_id: userId, sub_center_id: 'sz-a100', card_type_id: 'a100-80g', granted, remaining: granted, expire_time: now + 86_400_000, source: 'order', create_time: now })
      .execute();

    const g1 = await startGateway(env);
    const ids: string[] = [];
    try {
      for (let i = 0; i < TASKS; i++) {
        const res = await fetch(`http://127.0.0.1:${g1.port}${TRAINING_BASE}/tasks`, {
          method: 'POST',
          headers: { token, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `故障计量 ${i}`,
            type: 'train',
            subCenterId: 'sz-a100',
            cardTypeId: 'a100-80g',
            cardNum: 1 + (i % 2),
            nodeNum: 1,
            imageId: 'pytorch-2.3-cuda12',
            command: `sleep ${6 + (i % 5)}`,
            workDir: '/',
            env: [],
            maxDurationMinutes: 10,
          }),
        }).then((r) => r.json());
        expect(res.message.code, res.message.message).toBe(0);
        ids.push(res.data.id);
      }
      const states = async () => (await db.selectFrom('tasks').select(['id', 'state']).where('id', 'in', ids).execute()).map((r) => r.state);
      // Every task started (on a loaded machine the first may already have ended while the last are submitted),
      // and the gateway dies while some still run.
      await expect.poll(async () => (await states()).every((s) => s === 'RUNNING' || s === 'SUCCEEDED'), { timeout: 30_000, interval: 200 }).toBe(true);
      // A few passes of the gateway's own (period 1 s) before it dies.
      await sleep(2500);
      expect((await states()).some((s) => s === 'RUNNING')).toBe(true);
      expect(Number((await db.selectFrom('comp_power_buckets').select('remaining').where('id', '=', bucket).executeTakeFirstOrThrow()).remaining)).toBeLessThan(granted);
    } finally {
      await stopProcess(g1.child, 'SIGKILL');
    }

    // Down while every job ends (the longest sleeps 10 s); the other gateway keeps metering them as running.
    for (let i = 0; i < 13; i++) {
      await h.app.metering.pass('sz-a100');
      await sleep(700);
    }
    const g2 = await startGateway(env);
    try {
      const rows = async () => db.selectFrom('tasks').selectAll().where('id', 'in', ids).execute();
      await expect.poll(async () => (await rows()).every((r) => isTerminal(r.state as JobState)), { timeout: 30_000, interval: 250 }).toBe(true);
      // Both gateways meter at once until every task is settled.
      await expect
        .poll(
          async () => {
            await h.app.metering.pass('sz-a100');
            const meters = await db.selectFrom('task_meters').select('settled').where('task_id', 'in', ids).execute();
            return meters.length === TASKS && meters.every((m) => Number(m.settled) === 1);
          },
          { timeout: 20_000, interval: 300 },
        )
        .toBe(true);
      let total = 0;
      for (const r of await rows()) {
        expect(r.state).toBe('SUCCEEDED');
        const expected = r.card_num * Math.floor((Number(r.end_time) - Number(r.start_time)) / 1000);
        const meter = await db.selectFrom('task_meters').selectAll().where('task_id', '=', r.id).executeTakeFirstOrThrow();
        const records = await db.selectFrom('consume_records').select('card_seconds').where('task_id', '=', r.id).execute();
        expect([Number(meter.drawn), Number(meter.shortfall), records.reduce((s, x) => s + Number(x.card_seconds), 0)], r.name).toEqual([expected, 0, expected]);
        total += expected;
      }
      expect(Number((await db.selectFrom('comp_power_buckets').select('remaining').where('id', '=', bucket).executeTakeFirstOrThrow()).remaining)).toBe(granted - total);
    } finally {
      await stopProcess(g2.child);
    }
  }, 150_000);
});
