import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, ErrorCode, MESSAGE_BASE, TRAINING_BASE, WS_TASK_STATE_CHANGED, type AdminUserDetail, type AuditEntry } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit } from '../../../test/metering';
import { teamKit, type TeamUser as User } from '../../../test/teams';

/**
 * 运营管理 › 用户 › 运行中的任务 › 停止 on both engines (design/domain.md: STOPPED "by the user or an operator"):
 * an operator stops any user's running task with a reason — STOPPING with `运营人员停止：<reason>`, the job
 * cancelled, STOPPED with that reason once the scheduler confirms (not 用户停止, not UNDERPOWERED); one audit
 * entry; the owner told at once. Anyone else gets 1020 before validation; a missing, blank or too long reason
 * 1005 in Chinese; an unknown task 1205; an ended one 2001.
 */
describe.each(engines)('operators stop a task (%s)', (engine) => {
  let t: TestApp;
  let op: User;
  const k = meteringKit(() => t);
  const { user } = teamKit(() => t, 'ts');

  const stop = async (u: User | null, kind: string, id: string, payload: object = { reason: '占用资源影响他人' }) =>
    body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/tasks/${kind}/${id}/stop`, headers: u ? { token: u.token } : {}, payload }));
  const auditOf = async (targetId: string): Promise<AuditEntry[]> =>
    body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/audit-logs/action/page`, payload: { target: targetId, pageSize: 100 }, headers: { token: op.token } })).data.list;
  const messages = async (u: User) =>
    body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: u.token }, payload: { pageNum: 1, pageSize: 50 } })).data.list as { title: string; content: string; businessId: string }[];
  /** A training task of `owner` running on the local executor. */
  const running = async (owner: User, name: string) => {
    const res = await k.submit(owner.token, { name, command: 'echo started; sleep 60' });
    expect(res.message.code, res.message.message).toBe(0);
    await k.until(owner.token, res.data.id as string, ['RUNNING']);
    return res.data.id as string;
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    op = await user('op');
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  it('refuses the owner and other users (1020), a missing, blank or too long reason (1005, in Chinese) and an unknown task (1205)', async () => {
    const owner = await user('own');
    const other = await user('oth');
    const id = await running(owner, '拒绝用例');
    for (const u of [owner, other]) expect(await stop(u, 'training', id)).toEqual({ message: { code: ErrorCode.NO_PERMISSION, message: '没有权限' }, data: null });
    expect((await stop(null, 'training', id)).message.code).toBe(10133);
    expect((await stop(op, 'training', id, {})).message).toEqual({ code: ErrorCode.PARAM_INVALID, message: '参数校验失败：reason 不能为空' });
    expect((await stop(op, 'training', id, { reason: '' })).message).toEqual({ code: ErrorCode.PARAM_INVALID, message: '参数校验失败：reason 长度不能少于 1 个字符' });
    expect((await stop(op, 'training', id, { reason: ' \t ' })).message).toEqual({ code: ErrorCode.PARAM_INVALID, message: '参数校验失败：reason 不能为空' });
    expect((await stop(op, 'training', id, { reason: '长'.repeat(201) })).message).toEqual({ code: ErrorCode.PARAM_INVALID, message: '参数校验失败：reason 长度不能超过 200 个字符' });
    expect((await stop(op, 'training', 'no-such-task')).message).toEqual({ code: ErrorCode.NOT_FOUND, message: '任务不存在' });
    // The id of a training task under the other family: not found either (as the owner's routes answer).
    expect((await stop(op, 'slurm', id)).message.code).toBe(ErrorCode.NOT_FOUND);
    expect((await stop(op, 'other', id)).message.code).toBe(ErrorCode.PARAM_INVALID);
    // Nothing happened: still running, no entry, no message.
    expect((await k.detail(owner.token, id)).state).toBe('RUNNING');
    expect(await auditOf(id)).toEqual([]);
    expect((await messages(owner)).some((m) => m.title.includes('运营人员'))).toBe(false);
    expect((await k.call(owner.token, 'POST', `${TRAINING_BASE}/tasks/${id}/stop`)).message.code).toBe(0);
  });

  it('an operator stops a running task: STOPPED with the reason, the owner told, one audit entry; an ended task is 2001', async () => {
    const owner = await user('own');
    const id = await running(owner, '运营停止');
    const events: string[] = [];
    const off = t.app.ctx.bus.subscribe((uid, e) => void (uid === owner.id && e.businessType === WS_TASK_STATE_CHANGED && events.push(e.data.state)));
    const r = await stop(op, 'training', id, { reason: '  占用资源影响他人  ' });
    off();
    expect(r.message.code, r.message.message).toBe(0);
    expect(r.data).toMatchObject({ id, kind: 'training', name: '运营停止' });
    expect(['STOPPING', 'STOPPED']).toContain(r.data.state);
    expect(events).toContain('STOPPING');

    const d = await k.until(owner.token, id, ['STOPPED', 'UNDERPOWERED', 'FAILED']);
    expect(d.state).toBe('STOPPED');
    expect(d.reason).toBe('运营人员停止：占用资源影响他人');
    expect(d.events.find((e) => e.state === 'STOPPING')?.reason).toBe('运营人员停止：占用资源影响他人');
    expect(d.events.at(-1)).toMatchObject({ state: 'STOPPED', reason: '运营人员停止：占用资源影响他人' });
    // A stop is no failure: nothing to diagnose.
    expect(d.diagnosis).toBeNull();

    const told = (await messages(owner)).filter((m) => m.businessId === id);
    const byOperator = told.find((m) => m.title === '训练任务「运营停止」已被平台运营人员停止');
    expect(byOperator?.content).toContain('原因：占用资源影响他人');
    // The scheduler's confirmation says why too.
    expect(told.find((m) => m.title === '训练任务「运营停止」已停止')?.content).toContain('运营人员停止：占用资源影响他人');

    const entries = await auditOf(id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorKind: 'operator',
      actorId: op.id,
      actorName: op.username,
      action: 'task.stop',
      targetType: 'task',
      targetId: id,
      targetName: `运营停止（${owner.username}）`,
      reason: '占用资源影响他人',
    });
    expect(JSON.parse(entries[0].before!)).toEqual({ taskState: 'RUNNING', kind: 'training', ownerId: owner.id });
    expect(JSON.parse(entries[0].after!)).toEqual({ taskState: 'STOPPING', kind: 'training', ownerId: owner.id });
    // The owner's detail page for operators no longer lists it.
    const detail = body(await t.app.inject({ method: 'GET', url: `${ADMIN_BASE}/users/${owner.id}`, headers: { token: op.token } })).data as AdminUserDetail;
    expect(detail.runningTasks.map((x) => x.id)).not.toContain(id);

    // Ended: 2001, and no second entry.
    expect((await stop(op, 'training', id)).message.code).toBe(ErrorCode.TASK_NOT_STOPPABLE);
    expect(await auditOf(id)).toHaveLength(1);
  });

  it('writes the entry in the transaction of the stop: when the entry cannot be written, the task keeps running', async () => {
    const owner = await user('own');
    const id = await running(owner, '回滚用例');
    // A trail whose write fails inside the transaction (as a lost connection would): the move rolls back.
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await stop(op, 'training', id)).message.code).not.toBe(0);
    } finally {
      trail.record = record;
    }
    const d = await k.detail(owner.token, id);
    expect(d.state).toBe('RUNNING');
    expect(d.events.some((e) => e.state === 'STOPPING')).toBe(false);
    expect(await auditOf(id)).toEqual([]);
    expect((await messages(owner)).some((m) => m.businessId === id && m.title.includes('运营人员'))).toBe(false);
    expect((await k.call(owner.token, 'POST', `${TRAINING_BASE}/tasks/${id}/stop`)).message.code).toBe(0);
  });
});
