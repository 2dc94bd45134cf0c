import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountedJob, Executor } from '../../executors/executor';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import type { TaggedTask } from '../task/task-compute';
import { MeteringRepository } from './metering.repository';
import { OutsideJobRepository } from './outside-job.repository';
import { OutsideJobService } from './outside-job.service';

const CENTER = 'sz-a100';

/**
 * Issue 25: a job's name and comment are the user's to set over SSH, so the console's tag (`suanli-<taskId>`)
 * makes a job a task's only when the task matches it — this center, the account's owner, this job. Accounting
 * here is a list of records (the Slurm harness test, outside-jobs.slurm.int, reads the real slurmdbd); the rule
 * under test is ours.
 */
describe.each(engines)('outside jobs: the console tag is checked, not trusted (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('only a job that is the tagged task\'s own is skipped; a reused or foreign tag is metered as 外部作业', async () => {
    const now = t.clock.now;
    const center = t.app.ctx.centers.find((c) => c.id === CENTER)!;
    const account = `${center.accounts.prefix}0001`;
    const job = (jobId: string, name: string): AccountedJob => ({
      jobId, user: account, name, comment: null, partition: 'p', state: 'COMPLETED',
      submitTime: now - 60_000, startTime: now - 50_000, endTime: now - 10_000, nodes: 1, cards: 1, gres: 'gpu:a100',
    });
    const accounting = [
      job('100', 'suanli-t-own'), // the task's own job
      job('101', 'suanli-t-own'), // the same tag on another job: the task's job is 100
      job('102', 'suanli-t-other'), // another user's task
      job('103', 'suanli-t-elsewhere'), // a task on another center
      job('104', 'suanli-t-inflight'), // a task whose submit has not stored its job yet
      job('105', 'train.sh'), // untagged
    ];
    const tasks = new Map<string, TaggedTask>([
      ['t-own', { jobId: '100', subCenterId: CENTER, ownerId: 'u-me' }],
      ['t-other', { jobId: '999', subCenterId: CENTER, ownerId: 'u-someone' }],
      ['t-elsewhere', { jobId: null, subCenterId: 'gz-ascend', ownerId: 'u-me' }],
      ['t-inflight', { jobId: null, subCenterId: CENTER, ownerId: 'u-me' }],
    ]);
    const db = t.app.ctx.db;
    const svc = new OutsideJobService(
      new OutsideJobRepository(db),
      new MeteringRepository(db, t.app.ctx.engine),
      t.app.ctx.centers,
      new Map([[CENTER, { accountedJobs: async () => accounting } as unknown as Executor]]),
      async () => new Map([[account, { userId: 'u-me', since: 0 }]]),
      t.app.ctx.access,
      () => now,
      t.app.ctx.log,
    );
    await svc.sync(CENTER, { tagged: async (ids) => new Map(ids.filter((id) => tasks.has(id)).map((id) => [id, tasks.get(id)!])) });
    const stored = (await db.selectFrom('outside_jobs').select('job_id').where('sub_center_id', '=', CENTER).execute()).map((r) => r.job_id).sort();
    expect(stored).toEqual(['101', '102', '103', '105']);
  });
});
