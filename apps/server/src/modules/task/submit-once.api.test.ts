import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_REQUEST_TTL_MS, SLURM_BASE, TRAINING_BASE, type SlurmTaskCreate, type Task, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { trainingForm } from '../../../test/training-form';
import { newId } from '../../lib/id';

/**
 * Idempotent task submission (issue 17 item 6): a submission cut off by a network error may still have made
 * its task, and the console sends it again with the same `clientRequestId`. The same id from the same user
 * within a day answers the first task — also when identical requests race — on both task families, for a
 * new task and for 重新提交, on both engines.
 */
describe.each(engines)('idempotent task submission (%s)', (engine) => {
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  /** A fresh user (their own task lists) with a work directory on the A100 center. */
  async function user() {
    const userId = `u-once-${++n}`;
    const acc = await t.app.ctx.clusterAccounts.ensure(userId, 'sz-a100');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
    return { userId, token: (await t.app.ctx.sessions.create(userId)).token };
  }
  const call = async (token: string, base: string, url: string, payload?: object, method: 'GET' | 'POST' = 'POST') =>
    body(await t.app.inject({ method, url: `${base}${url}`, payload, headers: { token } }));
  const training = (over: Partial<TrainingTaskCreate> = {}) => trainingForm({ name: '幂等训练', command: 'echo once', ...over });
  const slurm = (over: Partial<SlurmTaskCreate> = {}): SlurmTaskCreate => ({
    name: '幂等 Slurm',
    type: 'custom',
    script: '#!/bin/bash\necho once\n',
    subCenterId: 'sz-a100',
    cardTypeId: 'cpu-std',
    cardNum: 1,
    nodeNum: 1,
    workDir: '/',
    env: [],
    maxDurationMinutes: 5,
    ...over,
  });
  /** The user's tasks of a family as stored (the list's total and ids). */
  const stored = async (token: string, base: string) => {
    const page = await call(token, base, '/tasks/action/page', { pageNum: 1, pageSize: 100 });
    return { total: page.data.total as number, ids: (page.data.list as Task[]).map((x) => x.id) };
  };
  const rid = () => `req-${newId(Date.now())}`.slice(0, 40);

  it('training: the same id twice makes one task, and the second answer is the first task', async () => {
    const { token } = await user();
    const id = rid();
    const first = await call(token, TRAINING_BASE, '/tasks', training({ clientRequestId: id }));
    expect(first.message.code, first.message.message).toBe(0);
    const again = await call(token, TRAINING_BASE, '/tasks', training({ clientRequestId: id }));
    expect(again.message.code, again.message.message).toBe(0);
    expect(again.data.id).toBe(first.data.id);
    expect(again.data.jobId).toBe(first.data.jobId);
    expect(await stored(token, TRAINING_BASE)).toEqual({ total: 1, ids: [first.data.id] });
    // The first task's events: one submission.
    const detail = await call(token, TRAINING_BASE, `/tasks/${first.data.id}`, undefined, 'GET');
    expect(detail.data.events.filter((e: { state: string }) => e.state === 'SUBMITTING')).toHaveLength(1);

    // A retry answers the first task even if the form changed meanwhile; a new id is a new task.
    expect((await call(token, TRAINING_BASE, '/tasks', training({ clientRequestId: id, name: '改了名字' }))).data.id).toBe(first.data.id);
    const other = await call(token, TRAINING_BASE, '/tasks', training({ clientRequestId: rid() + 'x' }));
    expect(other.data.id).not.toBe(first.data.id);
    // Without an id nothing changes: every submission is a task.
    await call(token, TRAINING_BASE, '/tasks', training());
    await call(token, TRAINING_BASE, '/tasks', training());
    expect((await stored(token, TRAINING_BASE)).total).toBe(4);
  });

  it('training: identical requests racing make one task; every answer is that task', async () => {
    const { token } = await user();
    const id = rid();
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(token, TRAINING_BASE, '/tasks', training({ clientRequestId: id, type: 'develop', command: 'sleep 30' }))));
    for (const a of answers) expect(a.message.code, a.message.message).toBe(0);
    const ids = new Set(answers.map((a) => a.data.id));
    expect(ids.size).toBe(1);
    const list = await stored(token, TRAINING_BASE);
    expect(list).toEqual({ total: 1, ids: [...ids] });
    const row = await t.app.tasks.repository.get(list.ids[0]);
    expect(row).toMatchObject({ client_request_id: id, submit_attempts: 1 });
    expect(row!.job_id).toBeTruthy();
    await call(token, TRAINING_BASE, `/tasks/${list.ids[0]}/stop`, {});
  });

  it('different users with the same id make a task each', async () => {
    const [a, b] = [await user(), await user()];
    const id = rid();
    const [ta, tb] = await Promise.all([a, b].map((u) => call(u.token, TRAINING_BASE, '/tasks', training({ clientRequestId: id }))));
    expect(ta.message.code).toBe(0);
    expect(tb.message.code).toBe(0);
    expect(ta.data.id).not.toBe(tb.data.id);
    expect((await stored(a.token, TRAINING_BASE)).ids).toEqual([ta.data.id]);
    expect((await stored(b.token, TRAINING_BASE)).ids).toEqual([tb.data.id]);
  });

  it('slurm: the same id twice, and racing, makes one task', async () => {
    const { token } = await user();
    const id = rid();
    const first = await call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: id }));
    expect(first.message.code, first.message.message).toBe(0);
    expect((await call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: id }))).data.id).toBe(first.data.id);
    expect(await stored(token, SLURM_BASE)).toEqual({ total: 1, ids: [first.data.id] });

    const raced = rid() + 'r';
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: raced }))));
    for (const a of answers) expect(a.message.code, a.message.message).toBe(0);
    expect(new Set(answers.map((a) => a.data.id)).size).toBe(1);
    expect((await stored(token, SLURM_BASE)).total).toBe(2);
    // An id a training submission made is not answered with a task of the other family.
    const tr = await call(token, TRAINING_BASE, '/tasks', training({ clientRequestId: id }));
    expect(tr.message.code).toBe(1005);
    expect(tr.message.message).toContain('clientRequestId');
    expect((await stored(token, TRAINING_BASE)).total).toBe(0);
  });

  it('重新提交 with the same id makes one new task (both families), concurrently too', async () => {
    const { token } = await user();
    for (const [base, form] of [
      [TRAINING_BASE, training()],
      [SLURM_BASE, slurm()],
    ] as const) {
      const src = await call(token, base, '/tasks', form);
      const id = rid();
      const answers = await Promise.all(Array.from({ length: 4 }, () => call(token, base, `/tasks/${src.data.id}/resubmit`, { clientRequestId: id })));
      for (const a of answers) expect(a.message.code, a.message.message).toBe(0);
      expect(new Set(answers.map((a) => a.data.id)).size).toBe(1);
      expect(answers[0].data.id).not.toBe(src.data.id);
      expect((await call(token, base, `/tasks/${src.data.id}/resubmit`, { clientRequestId: id })).data.id).toBe(answers[0].data.id);
      expect((await stored(token, base)).total).toBe(2);
      // Without an id (or a body) 重新提交 makes a task each time, as before.
      expect((await call(token, base, `/tasks/${src.data.id}/resubmit`)).message.code).toBe(0);
      expect((await stored(token, base)).total).toBe(3);
    }
  });

  it('after a day the id may name a new task; the old task stays', async () => {
    const { userId } = await user();
    let token = (await t.app.ctx.sessions.create(userId)).token;
    const id = rid();
    const first = (await call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: id }))).data as Task;
    const start = t.clock.now;
    try {
      t.clock.advance(CLIENT_REQUEST_TTL_MS - 60_000);
      token = (await t.app.ctx.sessions.create(userId)).token;
      expect((await call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: id }))).data.id).toBe(first.id);
      t.clock.advance(120_000);
      token = (await t.app.ctx.sessions.create(userId)).token;
      const second = await call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: id }));
      expect(second.message.code, second.message.message).toBe(0);
      expect(second.data.id).not.toBe(first.id);
      // The id now names the new task; the old one is still there, without it.
      expect((await call(token, SLURM_BASE, '/tasks', slurm({ clientRequestId: id }))).data.id).toBe(second.data.id);
      expect((await stored(token, SLURM_BASE)).ids.sort()).toEqual([first.id, second.data.id].sort());
      expect((await t.app.tasks.repository.get(first.id))!.client_request_id).toBeNull();
    } finally {
      t.clock.now = start;
    }
  });

  it('an invalid id is 1005 naming the field, and nothing is made', async () => {
    const { token } = await user();
    for (const bad of ['short', 'x'.repeat(65), 'has space in it', '中文编号中文编号中文', 'semi;colon-123', 42]) {
      for (const [base, form] of [
        [TRAINING_BASE, training()],
        [SLURM_BASE, slurm()],
      ] as const) {
        const res = await call(token, base, '/tasks', { ...form, clientRequestId: bad });
        expect(res.message.code, String(bad)).toBe(1005);
        expect(res.message.message).toMatch(/^参数校验失败：clientRequestId /);
      }
    }
    const src = await call(token, SLURM_BASE, '/tasks', slurm());
    const res = await call(token, SLURM_BASE, `/tasks/${src.data.id}/resubmit`, { clientRequestId: 'bad id!' });
    expect(res.message.code).toBe(1005);
    expect(res.message.message).toContain('clientRequestId 格式不正确');
    expect((await stored(token, TRAINING_BASE)).total).toBe(0);
    expect((await stored(token, SLURM_BASE)).total).toBe(1);
  });

  it('the unique index: one task per (owner, id) on the engine itself; tasks without an id never collide', async () => {
    const { userId } = await user();
    const repo = t.app.tasks.repository;
    const base = (await repo.get((await t.app.tasks.service.create({ userId } as never, {
      kind: 'slurm', type: 'custom', name: 'idx', subCenterId: 'sz-a100', placementReason: '', cardTypeId: 'cpu-std', cardNum: 1, nodeNum: 1,
      imageId: '', command: '#!/bin/bash\ntrue\n', workDir: '/', env: [], maxDurationMinutes: 5,
    })).id))!;
    const row = (over: object) => ({ ...base, id: newId(Date.now()), ...over });
    expect(await repo.insert(row({ client_request_id: 'same-id-123' }))).toBe(true);
    expect(await repo.insert(row({ client_request_id: 'same-id-123' }))).toBe(false);
    expect(await repo.insert(row({ client_request_id: 'same-id-123', owner_id: `${userId}-other` }))).toBe(true);
    expect(await repo.insert(row({ client_request_id: null }))).toBe(true);
    expect(await repo.insert(row({ client_request_id: null }))).toBe(true);
  });
});
