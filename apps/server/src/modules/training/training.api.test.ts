import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE, type Task, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { trainingForm } from '../../../test/training-form';

/**
 * Training tasks end to end on the local executor (the embedded default): the form's rules, the state engine
 * and its poller, messages, logs and metrics, ownership. The same flows on real Slurm are in
 * training.slurm.int.test.ts.
 */
describe.each(engines)('training tasks api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  const userA = 'u-train-a';
  const userB = 'u-train-b';

  beforeAll(async () => {
    t = await createTestApp(engine);
    tokenA = (await t.app.ctx.sessions.create(userA)).token;
    tokenB = (await t.app.ctx.sessions.create(userB)).token;
    // A's work directory on the A100 center.
    const acc = await t.app.ctx.clusterAccounts.ensure(userA, 'sz-a100');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, token: string | null = tokenA) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: token ? { token } : {} }).then((r) => body(r));

  const form = trainingForm;

  const create = async (over: Partial<TrainingTaskCreate> = {}) => {
    const res = await call('POST', '/tasks', form(over));
    expect(res.message.code, res.message.message).toBe(0);
    return res.data as Task;
  };
  const detail = async (id: string, token = tokenA) => (await call('GET', `/tasks/${id}`, undefined, token)).data as TaskDetail;
  const until = (id: string, state: string) => expect.poll(async () => (await detail(id)).state, { timeout: 20_000, interval: 100 }).toBe(state);

  it('runs a train task to 运行成功 with its log, metrics, timeline and a message', async () => {
    const task = await create({
      name: '成功的任务',
      command: 'echo "hello $RANK/$WORLD_SIZE on $CUDA_VISIBLE_DEVICES"; for s in 1 2 3; do echo "{\\"step\\":$s,\\"loss\\":0.$s}" >> "$SUANLI_METRICS_FILE"; done',
      env: [{ name: 'MY_VAR', value: '42' }],
    });
    expect(task).toMatchObject({ kind: 'training', type: 'train', subCenterId: 'sz-a100', subCenterName: '深圳算力分中心', cardTypeName: 'NVIDIA A100 80G' });
    expect(['QUEUED', 'RUNNING', 'SUCCEEDED']).toContain(task.state);
    expect(task.jobId).toBeTruthy();
    await until(task.id, 'SUCCEEDED');

    const d = await detail(task.id);
    expect(d.exitCode).toBe(0);
    expect(d.startTime).toBeTypeOf('number');
    expect(d.endTime).toBeTypeOf('number');
    const states = d.events.map((e) => e.state);
    expect(states[0]).toBe('CREATED');
    expect(states).toEqual(expect.arrayContaining(['SUBMITTING', 'QUEUED', 'SUCCEEDED']));
    expect(states.at(-1)).toBe('SUCCEEDED');

    const log = (await call('GET', `/tasks/${task.id}/log?offset=0`)).data;
    expect(log.content).toContain('hello 0/1 on 0');
    expect(log.eof).toBe(true);
    expect(log.nextOffset).toBe(log.size);
    const more = (await call('GET', `/tasks/${task.id}/log?offset=${log.nextOffset}`)).data;
    expect(more.content).toBe('');

    const m = (await call('GET', `/tasks/${task.id}/metrics?offset=0`)).data;
    expect(m.points).toEqual([
      { step: 1, loss: 0.1 },
      { step: 2, loss: 0.2 },
      { step: 3, loss: 0.3 },
    ]);

    const dl = await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${task.id}/log/download`, headers: { token: tokenA } });
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-disposition']).toContain(`suanli-${task.id}.log`);
    expect(dl.body).toContain('hello 0/1');

    const msgs = body(await t.app.inject({ method: 'POST', url: '/gateway/foundation/api/v1/message/query', payload: { pageNum: 1, pageSize: 50, type: 'task' }, headers: { token: tokenA } }));
    expect(msgs.data.list.map((x: { title: string }) => x.title)).toContain('训练任务「成功的任务」运行成功');
  });

  it('a failing command ends 运行失败 with its exit code', async () => {
    const task = await create({ name: '失败的任务', command: 'echo bad >&2; exit 3' });
    await until(task.id, 'FAILED');
    const d = await detail(task.id);
    expect(d.exitCode).toBe(3);
    expect(d.reason).toBe('退出码 3');
    expect((await call('GET', `/tasks/${task.id}/log`)).data.content).toContain('bad');
  });

  it('stops a running task → 已停止, and only a terminal task can be deleted', async () => {
    const task = await create({ name: '长任务', command: 'echo started; sleep 60' });
    await until(task.id, 'RUNNING');
    expect((await call('DELETE', `/tasks/${task.id}`)).message.code).toBe(2002);
    const stopped = await call('POST', `/tasks/${task.id}/stop`);
    expect(stopped.message.code).toBe(0);
    expect(['STOPPING', 'STOPPED']).toContain(stopped.data.state);
    await until(task.id, 'STOPPED');
    expect((await detail(task.id)).reason).toBe('用户停止');
    expect((await call('POST', `/tasks/${task.id}/stop`)).message.code).toBe(2001);
    expect((await call('DELETE', `/tasks/${task.id}`)).message.code).toBe(0);
    expect((await call('GET', `/tasks/${task.id}`)).message.code).toBe(1205);
  });

  it('runs a distributed task with one worker per card and the rank variables', async () => {
    const task = await create({
      name: '分布式',
      type: 'distributed',
      cardNum: 2,
      nodeNum: 1,
      command: 'echo "rank=$RANK world=$WORLD_SIZE local=$LOCAL_RANK node=$NODE_RANK master=$MASTER_ADDR:$MASTER_PORT"',
    });
    await until(task.id, 'SUCCEEDED');
    const content = (await call('GET', `/tasks/${task.id}/log`)).data.content as string;
    expect(content).toMatch(/rank=0 world=2 local=0 node=0 master=\S+:\d+/);
    expect(content).toMatch(/rank=1 world=2 local=1 node=0/);
  });

  it('智能调度 picks a center offering the card type and says why', async () => {
    const preview = await call('POST', '/placement', { cardTypeId: 'ascend-910b', cardNum: 1, nodeNum: 1 });
    expect(preview.message.code).toBe(0);
    expect(preview.data.subCenterId).toBe('gz-ascend');
    expect(preview.data.reason).toContain('广州算力分中心');
    expect(preview.data.reason).toContain('空闲');
    const task = await create({ name: '自动调度', subCenterId: 'auto', cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', workDir: '/' });
    expect(task.subCenterId).toBe('gz-ascend');
    expect(task.placementReason).toContain('智能调度');
    expect((await call('POST', '/placement', { cardTypeId: 'no-such-card', cardNum: 1 })).message.code).toBe(2003);
  });

  it('智能调度 counts a CPU-only type in 核, as 资源概览 does, and accelerator cards in 张', async () => {
    const cpu = (await call('POST', '/placement', { cardTypeId: 'cpu-std', cardNum: 2, nodeNum: 1 })).data.reason as string;
    expect(cpu).toMatch(/现有 \d+ 核空闲的CPU 通用型，可立即满足 2 核的需求/);
    expect(cpu).not.toContain('张');
    const gpu = (await call('POST', '/placement', { cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1 })).data.reason as string;
    expect(gpu).toMatch(/\d+ 张空闲的/);
  });

  it('bad input gets a Chinese message naming the field and creates nothing', async () => {
    const before = (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 10 })).data.total;
    const cases: [Partial<TrainingTaskCreate>, number, string?][] = [
      [{ name: '' }, 1005, 'name'],
      [{ name: '   ' }, 1005, 'name'],
      [{ workDir: '/nope' }, 1005, 'workDir'],
      [{ workDir: '/../etc' }, 1308],
      [{ cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8' }, 2004],
      [{ cardNum: 9 }, 2005],
      [{ imageId: 'mindspore-2.3-cann8' }, 2006],
      [{ imageId: 'no-such-image' }, 2006],
      [{ env: [{ name: 'SUANLI_TASK_ID', value: 'x' }] }, 1005, 'env'],
      [{ env: [{ name: '1BAD', value: 'x' }] }, 1005],
      [{ maxDurationMinutes: 0 }, 1005],
      [{ subCenterId: 'nowhere' }, 1205],
      [{ type: 'distributed', cardNum: 1, nodeNum: 1 }, 1005, 'nodeNum'],
    ];
    for (const [over, code, field] of cases) {
      const res = await call('POST', '/tasks', form(over));
      expect(res.message.code, JSON.stringify(over)).toBe(code);
      if (field) expect(res.message.message).toContain(field);
    }
    expect((await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 10 })).data.total).toBe(before);
  });

  it('another user cannot see, stop, resubmit, delete or read the log or metrics of a task', async () => {
    const task = await create({ name: '私有任务', command: 'echo secret-output; sleep 30' });
    for (const [method, url] of [
      ['GET', `/tasks/${task.id}`],
      ['POST', `/tasks/${task.id}/stop`],
      ['POST', `/tasks/${task.id}/resubmit`],
      ['DELETE', `/tasks/${task.id}`],
      ['GET', `/tasks/${task.id}/log`],
      ['GET', `/tasks/${task.id}/metrics`],
      ['GET', `/tasks/${task.id}/log/download`],
    ] as const) {
      const res = await call(method, url, undefined, tokenB);
      expect(res.message.code, `${method} ${url}`).toBe(1205);
      expect(JSON.stringify(res)).not.toContain('secret-output');
    }
    const listB = (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 100 }, tokenB)).data;
    expect(listB.total).toBe(0);
    expect((await call('GET', `/tasks/${task.id}`)).data.state).not.toBe('STOPPED');
    await call('POST', `/tasks/${task.id}/stop`);
  });

  it('lists with paging, type, state and name filters; resubmit makes a new task', async () => {
    const a = await create({ name: '列表-甲', command: 'true' });
    await until(a.id, 'SUCCEEDED');
    const again = await call('POST', `/tasks/${a.id}/resubmit`);
    expect(again.message.code).toBe(0);
    expect(again.data.id).not.toBe(a.id);
    expect(again.data.name).toBe('列表-甲');
    const page = (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 2, type: 'train' })).data;
    expect(page.list).toHaveLength(2);
    expect(page.total).toBeGreaterThan(2);
    const byName = (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 10, keyword: '列表' })).data;
    expect(byName.list.map((x: Task) => x.id)).toEqual([again.data.id, a.id]);
    const ok = (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 100, state: 'SUCCEEDED' })).data;
    expect(ok.list.every((x: Task) => x.state === 'SUCCEEDED')).toBe(true);
    expect((await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 10, keyword: '%' })).data.total).toBe(0);
    expect((await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 10, type: 'develop' })).data.total).toBe(0);
  });

  it('a resubmitted task and a copy from the form link 原任务; only the caller\'s own training task can be named', async () => {
    const a = await create({ name: '原任务-甲', command: 'true' });
    expect((await detail(a.id)).resubmittedFrom).toBeNull();
    const again = (await call('POST', `/tasks/${a.id}/resubmit`)).data as Task;
    expect((await detail(again.id)).resubmittedFrom).toEqual({ id: a.id, type: 'train', name: '原任务-甲' });
    // 复制并重新提交 / 按建议重新提交 for training go through the form, which names the task it was filled from.
    const copy = await create({ name: '副本', command: 'true', resubmittedFrom: a.id });
    expect((await detail(copy.id)).resubmittedFrom).toEqual({ id: a.id, type: 'train', name: '原任务-甲' });
    // Another user's task, or no task at all, is refused as not found (1205): no link, no task.
    const before = (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 1 }, tokenB)).data.total;
    for (const from of [a.id, 'no-such-task']) {
      const res = await call('POST', '/tasks', form({ name: '别人的副本', resubmittedFrom: from }), tokenB);
      expect(res.message.code).toBe(1205);
    }
    expect((await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 1 }, tokenB)).data.total).toBe(before);
    // The original's owner sees the link; once the original is deleted the link is gone (null), the task stays.
    await until(a.id, 'SUCCEEDED');
    expect((await call('DELETE', `/tasks/${a.id}`)).message.code).toBe(0);
    expect((await detail(copy.id)).resubmittedFrom).toBeNull();
  });

  it('offers the image catalogue filtered by card type', async () => {
    const all = (await call('GET', '/images')).data;
    expect(all.length).toBeGreaterThan(3);
    const npu = (await call('GET', '/images?cardTypeId=ascend-910b')).data as { cardVendors: string[] }[];
    expect(npu.length).toBeGreaterThan(0);
    expect(npu.every((i) => i.cardVendors.includes('Huawei'))).toBe(true);
    expect((await call('GET', '/images?framework=MindSpore')).data.map((i: { id: string }) => i.id)).toEqual(['mindspore-2.3-cann8']);
  });

  it('needs a token', async () => {
    expect((await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 10 }, null)).message.code).toBe(10133);
  });
});
