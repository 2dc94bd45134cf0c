import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLURM_BASE, TRAINING_BASE, type SlurmTaskCreate, type Task, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createPgDatabase, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import type { SlurmClusterInfo } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * Idempotent submission (issue 17 item 6) against a real Slurm cluster of the harness, through the gateway's
 * API on PostgreSQL: a submission sent twice, and sent several times at once, with one clientRequestId makes
 * one task and ONE job — counted in slurmctld's queue (squeue, by the cluster account) and in accounting
 * (sacct, by the task's tag in the job name).
 */
const { clusters } = workerSlurmHarness();
const cluster = clusters.find((c) => c.id === 'a')!;
const CENTER = `slurm-${cluster.id}`;
const slurmEnv = (c: SlurmClusterInfo) => ({ ...process.env, SLURM_CONF: c.slurmConf });

/** The account's jobs in slurmctld's queue: `jobId jobName` lines. */
const queued = (account: string) =>
  execFileSync('squeue', ['-h', '-u', account, '-o', '%i %j'], { env: slurmEnv(cluster), encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^\d+ /.test(l))
    .sort();
/** Jobs accounting has for a task (its tag `suanli-<id>` is the job name), live or ended. */
const accounted = (taskId: string) =>
  execFileSync('sacct', ['-X', '-n', '-P', '-a', '-M', cluster.cluster, '-S', 'now-2hours', '--name', `suanli-${taskId}`, '-o', 'JobID'], { env: slurmEnv(cluster), encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

describe('one clientRequestId, one job on real Slurm', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-once-slurm-'));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let t: TestApp;
  let token: string;
  let account: string;
  const userId = 'u-slurm-once';
  const made: { base: string; id: string }[] = [];

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    t = await createTestApp('postgres', {
      databaseUrl: pgDb.url,
      dataDir: dir,
      centersFile: writeSlurmCentersFile({ clusters, workDir: dir }, dir),
      clock: Date.now,
      compute: { pollIntervalMs: 500, leaseMs: 4000, submitRetryMs: 3000 },
    });
    token = (await t.app.ctx.sessions.create(userId)).token;
    account = (await t.app.ctx.clusterAccounts.ensure(userId, CENTER)).account;
  });
  const stopAll = async () => {
    for (const { base, id } of made) await t.app.inject({ method: 'POST', url: `${base}/tasks/${id}/stop`, headers: { token }, payload: {} });
  };
  afterAll(async () => {
    // Nothing of this test keeps running on the cluster, even when it failed half-way.
    if (t) await stopAll().catch(() => undefined);
    await t?.close();
    await pgDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const post = async <B extends object>(base: string, payload: B) => {
    const res = body<Task>(await t.app.inject({ method: 'POST', url: `${base}/tasks`, payload, headers: { token } }));
    expect(res.message.code, res.message.message).toBe(0);
    return res.data;
  };
  const slurmTask = (clientRequestId: string): SlurmTaskCreate => ({
    name: '幂等提交',
    type: 'custom',
    script: '#!/bin/bash\necho "user=$(id -un)"\nsleep 300\n',
    subCenterId: CENTER,
    cardTypeId: 'a100-80g',
    cardNum: 0,
    nodeNum: 1,
    workDir: '/',
    env: [],
    maxDurationMinutes: 10,
    clientRequestId,
  });
  const trainingTask = (clientRequestId: string): TrainingTaskCreate => ({
    name: '幂等训练',
    type: 'train',
    subCenterId: CENTER,
    cardTypeId: 'a100-80g',
    cardNum: 1,
    nodeNum: 1,
    imageId: 'pytorch-2.3-cuda12',
    command: 'sleep 300',
    workDir: '/',
    env: [],
    maxDurationMinutes: 10,
    clientRequestId,
  });

  it('the same request twice, and five at once, make one task and one Slurm job each', async () => {
    const first = await post(SLURM_BASE, slurmTask('once-sequential-1'));
    made.push({ base: SLURM_BASE, id: first.id });
    expect(first.jobId).toMatch(/^\d+$/);
    const again = await post(SLURM_BASE, slurmTask('once-sequential-1'));
    expect(again).toMatchObject({ id: first.id, jobId: first.jobId });

    const raced = await Promise.all(Array.from({ length: 5 }, () => post(SLURM_BASE, slurmTask('once-concurrent-1'))));
    const racedIds = new Set(raced.map((x) => x.id));
    expect(racedIds.size).toBe(1);
    const [second] = racedIds;
    made.push({ base: SLURM_BASE, id: second });

    const trained = await Promise.all(Array.from({ length: 4 }, () => post(TRAINING_BASE, trainingTask('once-training-1'))));
    expect(new Set(trained.map((x) => x.id)).size).toBe(1);
    const third = trained[0].id;
    made.push({ base: TRAINING_BASE, id: third });

    // Each task has its job; the gateway stored one job id for it.
    const rows = await Promise.all([first.id, second, third].map((id) => t.app.tasks.repository.get(id)));
    for (const r of rows) expect(r!.job_id).toMatch(/^\d+$/);
    expect(rows.map((r) => r!.submit_attempts)).toEqual([1, 1, 1]);

    // The cluster holds exactly those three jobs of the account, one per task.
    expect(queued(account)).toEqual(rows.map((r) => `${r!.job_id} suanli-${r!.id}`).sort());
    // Accounting agrees: one job per task's tag (it learns of a job shortly after slurmctld).
    for (const r of rows) await expect.poll(() => accounted(r!.id), { timeout: 20_000, interval: 500 }).toEqual([r!.job_id]);
    // And nobody's retry shows up later.
    await new Promise((res) => setTimeout(res, 2_000));
    expect(queued(account)).toHaveLength(3);

    // Stopping the three tasks empties the account's queue: there was no other job to forget.
    await stopAll();
    await expect.poll(() => queued(account), { timeout: 30_000, interval: 500 }).toEqual([]);
  }, 90_000);
});
