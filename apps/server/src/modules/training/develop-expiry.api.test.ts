import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE, type TaskDetail } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/**
 * A develop environment's owner is warned once before its 最长运行时长 ends (issue 10 item 3): a message of
 * type task (which also pushes the unread count over the socket). Here the warning window (31 min) is longer
 * than the task's limit (30 min), so the warning is due as soon as it runs; a train task is never warned.
 */
describe.each(engines)('develop task expiry warning (%s)', (engine) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { clock: Date.now, compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000, expiryWarnMs: 31 * 60_000 } });
    token = (await t.app.ctx.sessions.create('u-expiry')).token;
    await t.app.ctx.clusterAccounts.ensure('u-expiry', 'sz-a100');
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  const messages = async () =>
    body(await t.app.inject({ method: 'POST', url: '/gateway/foundation/api/v1/message/query', payload: { pageNum: 1, pageSize: 50, type: 'task' }, headers: { token } })).data.list.map(
      (m: { title: string }) => m.title,
    ) as string[];

  it('warns the owner once, and not for a train task', async () => {
    const form = { subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'sleep 30', workDir: '/', env: [], maxDurationMinutes: 30 };
    const dev = (await api('POST', '/tasks', { ...form, name: '笔记本', type: 'develop' })).data;
    const train = (await api('POST', '/tasks', { ...form, name: '训练', type: 'train' })).data;
    for (const id of [dev.id, train.id]) {
      await expect.poll(async () => ((await api('GET', `/tasks/${id}`)).data as TaskDetail).state, { timeout: 20_000 }).toBe('RUNNING');
    }
    await expect.poll(async () => (await messages()).filter((m) => m.includes('到达最长运行时长')), { timeout: 10_000 }).toEqual([
      expect.stringMatching(/^开发环境「笔记本」将在约 \d+ 分钟后到达最长运行时长$/),
    ]);
    // Several more polls: still one warning, none for the train task.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await messages()).filter((m) => m.includes('到达最长运行时长'))).toHaveLength(1);
    for (const id of [dev.id, train.id]) await api('POST', `/tasks/${id}/stop`);
  });
});
