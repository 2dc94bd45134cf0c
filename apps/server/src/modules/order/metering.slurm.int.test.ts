import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCardHours } from '@suanli/contracts';
import { createTestApp, type TestApp } from '../../../test/harness';
import { meteringKit } from '../../../test/metering';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import type { SlurmClusterInfo } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import { UNDERPOWERED_REASON } from '../task/task-compute';

const { clusters } = workerSlurmHarness();
const A = 'slurm-a';
const clusterA = () => clusters.find((c) => c.id === 'a')!;
const DAY = 24 * 3600_000;

/** One job's fields as Slurm's accounting has them. */
function sacct(c: SlurmClusterInfo, jobId: string): { state: string; elapsed: number } {
  const out = execFileSync('sacct', ['-X', '-n', '-P', '-M', c.cluster, '-j', jobId, '-o', 'State,ElapsedRaw'], { env: { ...process.env, SLURM_CONF: c.slurmConf }, encoding: 'utf8' });
  const [state, elapsed] = out.trim().split('\n')[0].split('|');
  return { state: state.split(' ')[0], elapsed: Number(elapsed) };
}

/**
 * Metering on a real Slurm cluster (ADR 0015): a task's draws equal its cards × the runtime Slurm's
 * accounting reports; a task whose compute power runs out is cancelled in Slurm and ends UNDERPOWERED within
 * one period plus one poll. Real clock, a 1 s period, the poller's hook metering as in production.
 */
describe('metering on real Slurm', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-meter-slurm-'));
  let t: TestApp;
  const k = meteringKit(() => t);
  let user: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      centersFile: writeSlurmCentersFile({ clusters, workDir: dir }, dir),
      clock: Date.now,
      compute: { pollIntervalMs: 500, leaseMs: 4000, submitRetryMs: 3000 },
      metering: { periodMs: 1000 },
    });
    user = { id: 'u-meter-slurm', token: (await t.app.ctx.sessions.create('u-meter-slurm')).token };
    // The work directory, owned by the user's cluster account (as the file service makes it).
    const acc = await t.app.ctx.clusterAccounts.ensure(user.id, A);
    const work = path.join(acc.homeDir, 'work');
    fs.mkdirSync(work, { recursive: true });
    fs.chownSync(work, acc.uid, acc.uid);
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a task draws exactly its cards × the elapsed seconds sacct reports', async () => {
    const bucket = await k.bucket(user.id, 10 * 3600, 30 * DAY, 'a100-80g', A);
    const res = await k.submit(user.token, { subCenterId: A, cardNum: 2, command: 'sleep 4' });
    expect(res.message.code, res.message.message).toBe(0);
    const d = await k.until(user.token, res.data.id, ['SUCCEEDED'], 60_000);
    await expect.poll(async () => Number((await k.meter(d.id))?.settled ?? 0), { timeout: 10_000, interval: 300 }).toBe(1);
    const acct = sacct(clusterA(), d.jobId!);
    expect(acct.state).toBe('COMPLETED');
    expect(acct.elapsed).toBeGreaterThanOrEqual(4);
    expect(Number((await k.meter(d.id))!.drawn)).toBe(2 * acct.elapsed);
    expect(await k.remaining(bucket)).toBe(10 * 3600 - 2 * acct.elapsed);
    expect((await k.detail(user.token, d.id)).consumed).toBe(formatCardHours(2 * acct.elapsed));
  }, 90_000);

  it('a task whose compute power runs out is cancelled in Slurm and ends UNDERPOWERED, the owner told', async () => {
    // Whatever the first test left, gone: only 3 card-seconds from here.
    await t.app.ctx.db.updateTable('comp_power_buckets').set({ remaining: 0 }).where('owner_id', '=', user.id).execute();
    await k.bucket(user.id, 3, DAY, 'a100-80g', A);
    const res = await k.submit(user.token, { subCenterId: A, name: '算力用完', command: 'sleep 120' });
    expect(res.message.code, res.message.message).toBe(0);
    const running = await k.until(user.token, res.data.id, ['RUNNING'], 60_000);
    const d = await k.until(user.token, res.data.id, ['UNDERPOWERED'], 20_000);
    expect(d.reason).toBe(UNDERPOWERED_REASON);
    // 3 s of compute power, then a period, a poll and Slurm's cancel.
    expect(d.endTime! - running.startTime!).toBeLessThan(3_000 + 1_000 + 500 + 4_000);
    await expect.poll(() => sacct(clusterA(), d.jobId!).state, { timeout: 15_000, interval: 500 }).toBe('CANCELLED');
    const messages = await t.app.ctx.db.selectFrom('messages').select('title').where('user_id', '=', user.id).where('business_id', '=', d.id).execute();
    expect(messages.map((m) => m.title)).toContain('训练任务「算力用完」算力不足');
  }, 120_000);
});
