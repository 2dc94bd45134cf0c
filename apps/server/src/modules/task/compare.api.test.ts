import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLURM_BASE, TRAINING_BASE, type ComparedTask, type Task, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { trainingForm } from '../../../test/training-form';

/**
 * 任务对比 (issue 23 item 4) on the local executor: real runs that wrote training curves are compared with
 * their parameters and curves, in the order asked; only the caller's own tasks of the family, at most five,
 * of one type — each refusal with its own code and Chinese text.
 */
describe.each(engines)('task comparison api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  const userA = 'u-cmp-a';

  beforeAll(async () => {
    t = await createTestApp(engine);
    tokenA = (await t.app.ctx.sessions.create(userA)).token;
    tokenB = (await t.app.ctx.sessions.create('u-cmp-b')).token;
    const acc = await t.app.ctx.clusterAccounts.ensure(userA, 'sz-a100');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST', url: string, payload?: object, token = tokenA, base = TRAINING_BASE) =>
    t.app.inject({ method, url: `${base}${url}`, payload, headers: { token } }).then((r) => body(r));
  const compare = (ids: string[], token = tokenA, base = TRAINING_BASE) => call('POST', '/tasks/action/compare', { ids }, token, base);

  const create = async (over: Partial<TrainingTaskCreate>) => {
    const res = await call('POST', '/tasks', trainingForm({ name: '对比', command: 'true', ...over }));
    expect(res.message.code, res.message.message).toBe(0);
    return res.data as Task;
  };
  async function settled(id: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { state } = (await call('GET', `/tasks/${id}`)).data as TaskDetail;
      if (state === 'SUCCEEDED' || state === 'FAILED') return;
      if (Date.now() > deadline) throw new Error(`task ${id} still ${state}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // A run that writes `steps` points of loss = lr-dependent decay.
  const curve = (lr: string, steps: number) =>
    `for s in $(seq 1 ${steps}); do echo "{\\"step\\":$s,\\"loss\\":$(awk "BEGIN{print 1/($s*${lr}+1)}")}" >> "$SUANLI_METRICS_FILE"; done; echo "lr=${lr}"`;

  let runs: Task[] = [];

  beforeAll(async () => {
    runs = [
      await create({ name: '学习率 0.1', command: curve('0.1', 5), env: [{ name: 'LR', value: '0.1' }] }),
      await create({ name: '学习率 0.5', command: curve('0.5', 5), env: [{ name: 'LR', value: '0.5' }] }),
      await create({ name: '学习率 1', command: `${curve('1', 3)}; exit 2`, env: [{ name: 'LR', value: '1' }], cardNum: 2 }),
    ];
    for (const r of runs) await settled(r.id);
  }, 60_000);

  it('compares three runs: parameters as lists show them and each curve, in the order asked', async () => {
    const ids = [runs[2]!.id, runs[0]!.id, runs[1]!.id];
    const res = await compare([...ids, runs[0]!.id]);
    expect(res.message.code, res.message.message).toBe(0);
    const tasks = res.data.tasks as ComparedTask[];
    expect(tasks.map((x) => x.id)).toEqual(ids);
    expect(tasks.map((x) => x.state)).toEqual(['FAILED', 'SUCCEEDED', 'SUCCEEDED']);
    expect(tasks[0]).toMatchObject({ cardNum: 2, exitCode: 2, env: [{ name: 'LR', value: '1' }], metricsTruncated: false });
    expect(tasks[1]).toMatchObject({ cardNum: 1, imageId: 'pytorch-2.3-cuda12', subCenterName: expect.any(String), exitCode: 0 });
    expect(tasks[0]!.metrics.map((p) => p.step)).toEqual([1, 2, 3]);
    expect(tasks[1]!.metrics).toHaveLength(5);
    expect(tasks[1]!.metrics[4]).toEqual({ step: 5, loss: expect.closeTo(1 / (5 * 0.1 + 1), 5) });
    expect(tasks[2]!.metrics[4]!.loss).toBeCloseTo(1 / 3.5, 5);
  });

  it('more than five tasks answer 2014 and tasks of different types 2015, in Chinese', async () => {
    const six = await Promise.all(['六-1', '六-2', '六-3'].map((name) => create({ name })));
    const tooMany = await compare([...runs, ...six].map((x) => x.id));
    expect(tooMany.message).toMatchObject({ code: 2014, message: '最多同时对比 5 个任务' });

    const dist = await create({ name: '分布式', type: 'distributed', cardNum: 2 });
    const mixed = await compare([runs[0]!.id, dist.id]);
    expect(mixed.message).toMatchObject({ code: 2015, message: '只能对比同一类型的任务' });

    const one = await compare([runs[0]!.id]);
    expect(one.message.code).toBe(1005);
  });

  it("another user's task, or a task of the other family, answers 1205 and reveals nothing", async () => {
    const other = await compare([runs[0]!.id, runs[1]!.id], tokenB);
    expect(other.message.code).toBe(1205);
    expect(JSON.stringify(other)).not.toContain('lr=');
    expect(JSON.stringify(other)).not.toContain('学习率');

    // The same ids under the Slurm base are not Slurm tasks.
    const wrongFamily = await compare([runs[0]!.id, runs[1]!.id], tokenA, SLURM_BASE);
    expect(wrongFamily.message.code).toBe(1205);

    const missing = await compare([runs[0]!.id, 'no-such-task']);
    expect(missing.message.code).toBe(1205);
  });

  it('Slurm tasks compare under the Slurm base', async () => {
    const make = async (name: string, mem: string) => {
      const res = await call(
        'POST',
        '/tasks',
        { name, type: 'custom', subCenterId: 'sz-a100', cardTypeId: 'cpu-std', cardNum: 1, nodeNum: 1, workDir: '/', env: [], maxDurationMinutes: 5, script: `#!/bin/bash\n#SBATCH --mem=${mem}\necho ok\n` },
        tokenA,
        SLURM_BASE,
      );
      expect(res.message.code, res.message.message).toBe(0);
      return res.data as Task;
    };
    const a = await make('脚本甲', '100M');
    const b = await make('脚本乙', '200M');
    const res = await compare([a.id, b.id], tokenA, SLURM_BASE);
    expect(res.message.code, res.message.message).toBe(0);
    expect((res.data.tasks as ComparedTask[]).map((x) => x.command.match(/--mem=(\S+)/)?.[1])).toEqual(['100M', '200M']);
  });
});
