import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, SLURM_BASE, TRAINING_BASE } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit, sleep } from '../../../test/metering';
import { UNDERPOWERED_REASON } from '../task/task-compute';

const DAY = 24 * 3600_000;

/** Whether a process exists (signal 0). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The gate and the stop (ADR 0015): no task without compute power for its first period; a running task whose
 * compute power runs out is stopped — job ended, UNDERPOWERED, the owner told — within a period and a poll.
 * Real clock, a 1 s period, so the poller's hook meters on its own as it would in production.
 */
describe.each(engines)('metering gate and stop (%s)', (engine) => {
  let t: TestApp;
  const k = meteringKit(() => t);

  beforeAll(async () => {
    t = await createTestApp(engine, { clock: Date.now, metering: { periodMs: 1000 } });
  });
  afterAll(() => t.close());

  it('refuses every kind of task without compute power for a first period: 2507 naming center, card type, balance and need; nothing stored', async () => {
    const u = await k.user('u-gate-zero');
    const train = await k.submit(u.token, { cardNum: 8 });
    expect(train.message.code).toBe(ErrorCode.COMP_POWER_INSUFFICIENT);
    expect(train.message.message).toBe('算力不足：深圳算力分中心 NVIDIA A100 80G 剩余 0.00 卡时，本任务（8 卡）每个计费周期（1 秒）需 0.01 卡时，请先购买算力');
    expect(train.data).toEqual({ subCenterId: 'sz-a100', subCenterName: '深圳算力分中心', cardTypeId: 'a100-80g', cardTypeName: 'NVIDIA A100 80G', balance: '0.00', need: '0.01' });
    for (const over of [{ type: 'develop' as const }, { type: 'distributed' as const, nodeNum: 2 }]) {
      expect((await k.submit(u.token, over)).message.code).toBe(ErrorCode.COMP_POWER_INSUFFICIENT);
    }
    const base = { name: '脚本', subCenterId: 'sz-a100', cardTypeId: 'cpu-std', cardNum: 0, nodeNum: 1, workDir: '/work', env: [], maxDurationMinutes: 5 };
    const custom = await k.call(u.token, 'POST', `${SLURM_BASE}/tasks`, { ...base, type: 'custom', script: '#!/bin/bash\necho hi\n' });
    expect(custom.message.code).toBe(ErrorCode.COMP_POWER_INSUFFICIENT);
    // A CPU-only job pays one card per node.
    expect(custom.message.message).toContain('CPU 通用型 剩余 0.00 卡时，本任务（1 卡）');
    const template = await k.call(u.token, 'POST', `${SLURM_BASE}/templates`, {
      name: '无参数',
      description: '',
      category: '测试',
      script: '#!/bin/bash\necho hi\n',
      params: [],
      defaults: { cardNum: 1, nodeNum: 1, maxDurationMinutes: 5 },
    });
    expect(template.message.code, template.message.message).toBe(0);
    const fromTemplate = await k.call(u.token, 'POST', `${SLURM_BASE}/tasks`, { ...base, type: 'template', templateId: template.data.id, params: {} });
    expect(fromTemplate.message.code).toBe(ErrorCode.COMP_POWER_INSUFFICIENT);
    expect((await k.call(u.token, 'POST', `${TRAINING_BASE}/tasks/action/page`, { pageNum: 1, pageSize: 10 })).data.total).toBe(0);
    expect((await k.call(u.token, 'POST', `${SLURM_BASE}/tasks/action/page`, { pageNum: 1, pageSize: 10 })).data.total).toBe(0);

    // Compute power of another card type or center, or expired, does not count; enough of the right one does.
    await k.bucket(u.id, 100 * 3600, DAY, 'cpu-std');
    await k.bucket(u.id, 100 * 3600, -1);
    await k.bucket(u.id, 7, DAY);
    const short = await k.submit(u.token, { cardNum: 8 });
    expect(short.message.message).toContain('剩余 0.00 卡时');
    expect((await k.submit(u.token, { cardNum: 7 })).message.code).toBe(0);
  });

  it('a running task whose compute power runs out is stopped: the job ends, UNDERPOWERED, the owner is told', async () => {
    const u = await k.user('u-gate-out');
    // 3 card-seconds: three seconds of one card.
    const bucket = await k.bucket(u.id, 3, DAY);
    const pidFile = path.join(u.home, 'work', 'job.pid');
    const res = await k.submit(u.token, { name: '算力会用完', command: `echo $$ > ${JSON.stringify(pidFile)}; exec sleep 60` });
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id as string;
    const running = await k.until(u.token, id, ['RUNNING']);
    await expect.poll(() => fs.existsSync(pidFile)).toBe(true);
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    expect(alive(pid)).toBe(true);
    // The hook meters every second after the poll; the bucket is empty after 3 s, the stop follows within a
    // period and a poll (and the job's end within its kill).
    const d = await k.until(u.token, id, ['UNDERPOWERED'], 15_000);
    expect(d.reason).toBe(UNDERPOWERED_REASON);
    expect(d.events.map((e) => e.state)).toEqual(expect.arrayContaining(['RUNNING', 'STOPPING', 'UNDERPOWERED']));
    expect(d.endTime! - running.startTime!).toBeLessThan(3_000 + 1_000 + 2_000 + 1_000);
    expect(alive(pid)).toBe(false);
    expect(await k.remaining(bucket)).toBe(0);
    // It stays UNDERPOWERED: later polls and passes leave it.
    await sleep(1500);
    await t.app.metering.pass('sz-a100');
    const after = await k.detail(u.token, id);
    expect(after.state).toBe('UNDERPOWERED');
    expect(after.consumed).toBe('0.00');
    const meter = await k.meter(id);
    // What ran beyond the bucket is recorded as shortfall, never drawn.
    expect(Number(meter!.drawn)).toBe(3);
    expect(Number(meter!.drawn) + Number(meter!.shortfall)).toBe(Math.floor((after.endTime! - after.startTime!) / 1000));
    const messages = await t.app.ctx.db.selectFrom('messages').selectAll().where('user_id', '=', u.id).where('business_id', '=', id).execute();
    expect(messages.map((m) => [m.type, m.title])).toContainEqual(['task', '训练任务「算力会用完」算力不足']);
    expect(messages.find((m) => m.title.endsWith('算力不足'))!.content).toContain(UNDERPOWERED_REASON);
  }, 30_000);
});
