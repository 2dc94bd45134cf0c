import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, ORDER_BASE } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

const CENTER = 'sz-a100';
const CARD = 'a100-80g';

/**
 * 外部作业 and 计量对账 (issue 25) on both engines with the embedded default's local scheduler, which has no
 * outside route (no accounting to read: acceptance 4). The rows here stand for what a Slurm center's accounting
 * gave (outside-jobs.slurm.int.test.ts makes them for real): each user reads only their own, with what each
 * drew; the draws are 消费记录 of kind `outside`; the reconciliation is operators' only and names the centers
 * it cannot read.
 */
describe.each(engines)('outside jobs and the reconciliation (%s)', (engine) => {
  let t: TestApp;
  const owner = 'u-outside-owner';
  const other = 'u-outside-other';
  const op = 'u-outside-op';
  const tokens: Record<string, string> = {};
  const send = async (path: string, who: string, payload: object) => body(await t.app.inject({ method: 'POST', url: `${ORDER_BASE}${path}`, headers: { token: tokens[who] }, payload }));

  beforeAll(async () => {
    t = await createTestApp(engine, { metering: { periodMs: 60_000 } });
    await t.app.ctx.access.grant(op, 'operator');
    for (const u of [owner, other, op]) tokens[u] = (await t.app.ctx.sessions.create(u)).token;
    const now = t.clock.now;
    const db = t.app.ctx.db;
    const row = (jobId: string, ownerId: string, extra: object) => ({
      id: `${CENTER}:${jobId}`,
      sub_center_id: CENTER,
      job_id: jobId,
      account: 'szu0001',
      owner_id: ownerId,
      card_type_id: CARD,
      name: `job-${jobId}`,
      partition: 'gpu',
      state: 'SUCCEEDED',
      slurm_state: 'COMPLETED',
      stop_reason: null,
      card_num: 2,
      node_num: 1,
      submit_time: now - 200_000,
      start_time: now - 100_000,
      end_time: now - 40_000,
      create_time: now,
      update_time: now,
      ...extra,
    });
    await db.insertInto('outside_jobs').values([row('11', owner, {}), row('12', owner, { state: 'QUEUED', slurm_state: 'PENDING', start_time: null, end_time: null, submit_time: now - 100_000 }), row('13', other, {})]).execute();
    await db
      .insertInto('task_meters')
      .values({ task_id: `${CENTER}:11`, owner_id: owner, sub_center_id: CENTER, card_type_id: CARD, metered: 60, drawn: 120, shortfall: 0, settled: 1, create_time: now, update_time: now })
      .execute();
    await db
      .insertInto('consume_records')
      .values({
        id: 'cr-outside-11',
        owner_id: owner,
        task_id: `${CENTER}:11`,
        task_kind: 'outside',
        task_name: 'job-11',
        sub_center_id: CENTER,
        card_type_id: CARD,
        card_num: 2,
        node_num: 1,
        comp_power_id: 'b-x',
        day: '2026-01-01',
        card_seconds: 120,
        elapsed_from: 0,
        elapsed_to: 60,
        start_time: now - 100_000,
        end_time: now - 40_000,
        create_time: now,
        update_time: now,
      })
      .execute();
  });
  afterAll(async () => t?.close());

  it('the local scheduler has no outside route', () => {
    for (const e of t.app.tasks.executors.values()) expect(e.accountedJobs).toBeUndefined();
  });

  it('each user lists only their own outside jobs, newest first, with what each drew; the draws are 消费记录 of kind outside', async () => {
    const mine = await send('/outside-jobs/action/page', owner, { pageNum: 1, pageSize: 10 });
    expect(mine.message.code).toBe(0);
    expect(mine.data.total).toBe(2);
    expect(mine.data.list.map((j: { jobId: string; state: string; consumed: string; consumedSeconds: number; billedCards: number }) => [j.jobId, j.state, j.consumed, j.consumedSeconds, j.billedCards])).toEqual([
      ['12', 'QUEUED', '0.00', 0, 2],
      ['11', 'SUCCEEDED', '0.03', 120, 2],
    ]);
    expect(mine.data.list[1]).toMatchObject({ id: `${CENTER}:11`, subCenterId: CENTER, cardTypeId: CARD, cardNum: 2, nodeNum: 1, account: 'szu0001', slurmState: 'COMPLETED', reason: '' });
    const theirs = await send('/outside-jobs/action/page', other, { pageNum: 1, pageSize: 10 });
    expect(theirs.data.list.map((j: { jobId: string }) => j.jobId)).toEqual(['13']);
    const records = await send('/records/action/page', owner, { type: 'consume', pageNum: 1, pageSize: 10 });
    expect(records.data.list.map((r: { taskId: string; taskKind: string; cardSeconds: number }) => [r.taskId, r.taskKind, r.cardSeconds])).toEqual([[`${CENTER}:11`, 'outside', 120]]);
    expect((await send('/records/action/page', other, { type: 'consume', pageNum: 1, pageSize: 10 })).data.total).toBe(0);
  });

  it('the reconciliation is operators only, checks its range, and names centers without accounting', async () => {
    expect((await send('/metering/action/reconcile', owner, { fromDay: '2026-01-01', toDay: '2026-01-02' })).message.code).toBe(ErrorCode.NO_PERMISSION);
    const bad = await send('/metering/action/reconcile', op, { fromDay: '2026-01-05', toDay: '2026-01-01' });
    expect(bad.message).toMatchObject({ code: ErrorCode.PARAM_INVALID, message: '日期范围不正确' });
    expect((await send('/metering/action/reconcile', op, { fromDay: '2026-01-01', toDay: '2026-03-01' })).message.code).toBe(ErrorCode.PARAM_INVALID);
    const r = await send('/metering/action/reconcile', op, { fromDay: '2026-01-01', toDay: '2026-01-02' });
    expect(r.message.code).toBe(0);
    expect(r.data).toEqual({ days: [], differences: [], running: 0, unavailable: expect.arrayContaining([expect.any(String)]), reconciled: [] });
    expect(r.data.unavailable.length).toBe(t.app.ctx.centers.length);
  });
});
