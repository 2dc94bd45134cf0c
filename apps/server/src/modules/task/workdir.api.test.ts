import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLURM_BASE, TRAINING_BASE, taskFolder, type Task, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { trainingForm } from '../../../test/training-form';

/**
 * A task's own working folder (issue 22 problem 2): a form without 工作目录 gets `/tasks/<name>-<id>`, made in
 * the owner's home as the account; the job runs there and its log and the files beside it land there, not in
 * the home's root. A folder the user names is used as it is (and must exist); resubmitting a task whose folder
 * was its own gives the new task a folder of its own. Both families, on the local executor.
 */
describe.each(engines)('task working folders (%s)', (engine) => {
  let t: TestApp;
  let token: string;
  let home: string;
  const user = 'u-workdir';

  beforeAll(async () => {
    t = await createTestApp(engine);
    token = (await t.app.ctx.sessions.create(user)).token;
    home = (await t.app.ctx.clusterAccounts.ensure(user, 'sz-a100')).homeDir;
    fs.mkdirSync(path.join(home, 'mine'), { recursive: true });
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, payload, headers: { token } }).then((r) => body(r));
  const created = (res: { message: { code: number; message: string }; data: unknown }) => {
    expect(res.message.code, res.message.message).toBe(0);
    return res.data as Task;
  };
  const detail = async (base: string, id: string) => (await call('GET', `${base}/tasks/${id}`)).data as TaskDetail;
  const until = (base: string, id: string, state: string) =>
    expect.poll(async () => (await detail(base, id)).state, { timeout: 20_000, interval: 100 }).toBe(state);
  // No 工作目录 unless a case gives one: the task gets a folder of its own.
  const training = (over: Partial<TrainingTaskCreate> = {}) =>
    call('POST', `${TRAINING_BASE}/tasks`, trainingForm({ name: '图像 分类/v1', command: 'pwd > where.txt; echo out > result.txt', workDir: undefined, ...over }));
  const rootEntries = () => fs.readdirSync(home).filter((n) => !n.startsWith('.')).sort();

  it('a training task without 工作目录 runs in its own folder /tasks/<name>-<id>, with its log and outputs', async () => {
    const task = created(await training());
    const folder = taskFolder('图像 分类/v1', task.id);
    expect(folder).toBe(`/tasks/图像-分类-v1-${task.id}`);
    const d = await detail(TRAINING_BASE, task.id);
    expect(d.workDir).toBe(folder);
    const abs = path.join(home, folder);
    // Made as the account: owned like the home itself.
    expect(fs.statSync(abs).uid).toBe(fs.statSync(home).uid);
    await until(TRAINING_BASE, task.id, 'SUCCEEDED');
    expect(fs.readFileSync(path.join(abs, 'where.txt'), 'utf8').trim()).toBe(fs.realpathSync(abs));
    expect(fs.readFileSync(path.join(abs, 'result.txt'), 'utf8')).toBe('out\n');
    expect(fs.readdirSync(abs)).toEqual(expect.arrayContaining([`suanli-${task.id}.log`, 'where.txt', 'result.txt']));
    // Nothing of the task's in the home's root: only the folder of task folders (and `mine`).
    expect(rootEntries()).toEqual(['mine', 'tasks']);

    // The same parameters again: a new task, a new folder of its own.
    const again = created(await call('POST', `${TRAINING_BASE}/tasks/${task.id}/resubmit`, {}));
    expect(again.id).not.toBe(task.id);
    expect((await detail(TRAINING_BASE, again.id)).workDir).toBe(taskFolder('图像 分类/v1', again.id));
    await until(TRAINING_BASE, again.id, 'SUCCEEDED');
    expect(fs.existsSync(path.join(home, taskFolder('图像 分类/v1', again.id), 'result.txt'))).toBe(true);
  });

  it('a folder the user names is used as it is: it must exist, and a resubmission keeps it', async () => {
    const task = created(await training({ name: '指定目录', workDir: '/mine' }));
    expect((await detail(TRAINING_BASE, task.id)).workDir).toBe('/mine');
    await until(TRAINING_BASE, task.id, 'SUCCEEDED');
    expect(fs.readFileSync(path.join(home, 'mine/result.txt'), 'utf8')).toBe('out\n');
    const again = created(await call('POST', `${TRAINING_BASE}/tasks/${task.id}/resubmit`, {}));
    expect((await detail(TRAINING_BASE, again.id)).workDir).toBe('/mine');
    await until(TRAINING_BASE, again.id, 'SUCCEEDED');

    const missing = await training({ name: '不存在的目录', workDir: '/not-there' });
    expect(missing.message).toMatchObject({ code: 1005, message: expect.stringContaining('/not-there') });
    expect(fs.existsSync(path.join(home, 'not-there'))).toBe(false);
  });

  it('a Slurm job without 工作目录 runs in its own folder too, its output there', async () => {
    const task = created(
      await call('POST', `${SLURM_BASE}/tasks`, {
        name: 'sbatch 作业',
        type: 'custom',
        script: '#!/bin/bash\npwd > where.txt\necho "id=$SLURM_JOB_ID"\n',
        subCenterId: 'sz-a100',
        cardTypeId: 'cpu-std',
        cardNum: 1,
        nodeNum: 1,
        env: [],
        maxDurationMinutes: 5,
      }),
    );
    const folder = `/tasks/sbatch-作业-${task.id}`;
    expect((await detail(SLURM_BASE, task.id)).workDir).toBe(folder);
    await until(SLURM_BASE, task.id, 'SUCCEEDED');
    const abs = path.join(home, folder);
    expect(fs.readFileSync(path.join(abs, 'where.txt'), 'utf8').trim()).toBe(fs.realpathSync(abs));
    expect(fs.readFileSync(path.join(abs, `suanli-${task.id}.log`), 'utf8')).toMatch(/^id=\d+$/m);
    expect(rootEntries()).toEqual(['mine', 'tasks']);
  });
});
