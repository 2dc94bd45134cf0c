import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE, type Task, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/**
 * The local executor's queue and time limit seen through the API (issue 9, criterion 2: "the same task
 * flows pass on the local executor"): a center with one node of two cards, so a second task cannot fit and
 * waits with the scheduler's reason, and a minute shortened to one second (`compute.local.minuteMs`), so
 * 最长运行时长 is reached in seconds. The same flows on real Slurm are in training.slurm.int.test.ts.
 */
const CENTERS = `
centers:
  - id: tiny
    name: 小型测试分中心
    region: 测试
    description: 一个节点两张卡
    status: online
    loginHost: 127.0.0.1
    scheduler: { kind: local }
    storageRoot: centers/tiny
    quotaGB: 1
    accounts: { prefix: tnu, uidStart: 40001, size: 10 }
    cardTypes:
      - { id: t4, name: NVIDIA T4, vendor: NVIDIA, memoryGB: 16, nodes: 1, cardsPerNode: 2, cpusPerCard: 2, memoryGBPerCard: 8, partition: gpu }
images:
  - { id: py, name: Python 3.11, framework: Python, version: '3.11', accelerator: '', cardVendors: [NVIDIA], uri: 'docker://example/python:3.11', description: 测试镜像 }
`;

describe.each(engines)('training task queue and time limit on the local executor (%s)', (engine) => {
  let t: TestApp;
  let token: string;
  let centersDir: string;

  beforeAll(async () => {
    centersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-centers-'));
    const centersFile = path.join(centersDir, 'centers.yaml');
    fs.writeFileSync(centersFile, CENTERS);
    t = await createTestApp(engine, {
      centersFile,
      compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000, local: { pollMs: 100, killGraceMs: 500, minuteMs: 1000 } },
    });
    token = (await t.app.ctx.sessions.create('u-limits')).token;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(centersDir, { recursive: true, force: true });
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  const create = async (over: Partial<TrainingTaskCreate>) => {
    const form: TrainingTaskCreate = {
      name: '任务',
      type: 'train',
      subCenterId: 'tiny',
      cardTypeId: 't4',
      cardNum: 1,
      nodeNum: 1,
      imageId: 'py',
      command: 'echo hello',
      workDir: '/',
      env: [],
      maxDurationMinutes: 60,
      ...over,
    };
    const res = await call('POST', '/tasks', form);
    expect(res.message.code, res.message.message).toBe(0);
    return res.data as Task;
  };
  const detail = async (id: string) => (await call('GET', `/tasks/${id}`)).data as TaskDetail;
  const until = (id: string, state: string) =>
    expect.poll(async () => (await detail(id)).state, { timeout: 20_000, interval: 100 }).toBe(state);

  it('a task that cannot fit waits 排队中 with the reason; the one behind it says it is behind; both run once cards free', async () => {
    const holder = await create({ name: '占满两张卡', cardNum: 2, command: 'sleep 60' });
    await until(holder.id, 'RUNNING');

    const blocked = await create({ name: '等待资源', cardNum: 2, command: 'echo ran-after-wait' });
    await until(blocked.id, 'QUEUED');
    await expect.poll(async () => (await detail(blocked.id)).reason, { timeout: 10_000 }).toBe('资源不足，等待空闲算力');
    const behind = await create({ name: '排在后面', cardNum: 1, command: 'echo behind' });
    await expect.poll(async () => (await detail(behind.id)).reason, { timeout: 10_000 }).toBe('排队中，前面有更早提交或优先级更高的作业');
    expect((await detail(behind.id)).state).toBe('QUEUED');

    expect((await call('POST', `/tasks/${holder.id}/stop`)).message.code).toBe(0);
    await until(holder.id, 'STOPPED');
    await until(blocked.id, 'SUCCEEDED');
    await until(behind.id, 'SUCCEEDED');
    expect((await call('GET', `/tasks/${blocked.id}/log`)).data.content).toContain('ran-after-wait');
    // The queue is first come, first served: the task behind started no earlier than the one it waited for.
    expect((await detail(behind.id)).startTime!).toBeGreaterThanOrEqual((await detail(blocked.id)).startTime!);
  });

  it('a task past its 最长运行时长 ends 运行失败 with reason 超时', async () => {
    const task = await create({ name: '超时任务', command: 'echo started; sleep 60', maxDurationMinutes: 2 });
    await until(task.id, 'RUNNING');
    await until(task.id, 'FAILED');
    const d = await detail(task.id);
    expect(d.reason).toBe('超时');
    // Ended by the limit (2 "minutes" of 1 s + the kill grace), not by its 60 s sleep.
    expect(d.endTime! - d.startTime!).toBeLessThan(30_000);
    expect((await call('GET', `/tasks/${task.id}/log`)).data.content).toContain('started');
  });
});
