import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_BASE, TRAINING_BASE, type ResourceOverview, type Task, type UtilizationSeries } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { connect, wsUrl } from '../../../test/ws-client';

/**
 * 资源 on the local executor (both engines): the overview follows the executor's inventory as sampled by the
 * poller's leader, the caller sees only their own running tasks, the series and vendor totals come from the
 * samples, and card-hours split a task's run time × cards over calendar days (UTC+8). The numbers against
 * real Slurm (sinfo/squeue): resource.slurm.int.test.ts.
 */
describe.each(engines)('resource api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000, resourceSampleMs: 300 } });
    tokenA = (await t.app.ctx.sessions.create('u-res-a')).token;
    tokenB = (await t.app.ctx.sessions.create('u-res-b')).token;
    await t.app.ctx.clusterAccounts.ensure('u-res-a', 'sz-a100');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  const get = <T>(url: string, token: string | null = tokenA) =>
    t.app.inject({ method: 'GET', url: `${RESOURCE_BASE}${url}`, headers: token ? { token } : {} }).then((r) => body<T>(r));
  const a100 = (o: ResourceOverview) => o.centers.find((c) => c.subCenterId === 'sz-a100')!.cardTypes.find((c) => c.cardTypeId === 'a100-80g')!;

  it('shows the configured inventory before any sample, then what the executor reports while a task runs', async () => {
    const before = (await get<ResourceOverview>('/overview')).data;
    expect(before.centers.map((c) => c.subCenterId)).toEqual(['sz-a100', 'gz-ascend']);
    expect(a100(before)).toMatchObject({ total: 32, nodesTotal: 4, cardTypeName: 'NVIDIA A100 80G', vendor: 'NVIDIA', accelerator: true });

    const created = await t.app.inject({
      method: 'POST',
      url: `${TRAINING_BASE}/tasks`,
      headers: { token: tokenA },
      payload: { name: '占两张卡', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 2, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'sleep 60', workDir: '/', env: [], maxDurationMinutes: 10 },
    });
    const task = body<Task>(created).data;
    expect(body(created).message.code).toBe(0);
    // Time moves for the sampler (its interval is measured on the app's clock).
    const tick = setInterval(() => t.clock.advance(1000), 100);
    try {
      await expect.poll(async () => a100((await get<ResourceOverview>('/overview')).data).allocated, { timeout: 20_000, interval: 200 }).toBe(2);
    } finally {
      clearInterval(tick);
    }
    const o = (await get<ResourceOverview>('/overview')).data;
    expect(a100(o)).toMatchObject({ total: 32, allocated: 2, idle: 30, nodesIdle: 3 });
    const sz = o.centers.find((c) => c.subCenterId === 'sz-a100')!;
    expect(sz.state).toBe('online');
    expect(sz.sampledAt).toBeTypeOf('number');
    expect(sz.myRunning).toEqual([expect.objectContaining({ id: task.id, name: '占两张卡', cards: 2, cardTypeName: 'NVIDIA A100 80G' })]);

    // Another user sees the same inventory but none of A's tasks.
    const ob = (await get<ResourceOverview>('/overview', tokenB)).data;
    expect(a100(ob).allocated).toBe(2);
    expect(JSON.stringify(ob)).not.toContain(task.id);

    const series = (await get<UtilizationSeries>('/utilization?hours=1')).data;
    const pts = series.centers.find((c) => c.subCenterId === 'sz-a100')!.points;
    expect(pts.length).toBeGreaterThan(0);
    // The center's accelerator cards are the denominator (its CPU type's 512 cores are not cards).
    expect(pts.at(-1)).toMatchObject({ allocated: 2, total: 32, utilization: 0.063 });

    const vendors = (await get<{ vendor: string; total: number; allocated: number }[]>('/vendors')).data;
    expect(vendors.find((v) => v.vendor === 'NVIDIA')).toEqual({ vendor: 'NVIDIA', total: 32, allocated: 2 });
    expect(vendors.find((v) => v.vendor === 'Huawei')?.total).toBe(32);
    expect(vendors.find((v) => v.vendor === 'Intel')).toBeUndefined();

    await t.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks/${task.id}/stop`, headers: { token: tokenA } });
  });

  it('announces each stored sample to every open socket, whoever holds it, so the pages re-read at once', async () => {
    const port = (t.app.server.address() as AddressInfo).port;
    const [sa, sb] = await Promise.all([connect(wsUrl(port, tokenA)), connect(wsUrl(port, tokenB))]);
    try {
      t.clock.advance(5_000);
      const at = t.clock.now;
      await t.app.resources.sample('gz-ascend', true);
      const want = { businessType: 'resource.sampled', data: { centerId: 'gz-ascend', sampledAt: at } };
      // The poller samples on its own too: wait for this one.
      const ours = (m: typeof want) => m.data.centerId === 'gz-ascend' && m.data.sampledAt === at;
      expect(await sa.nextBroadcast(ours)).toEqual(want);
      expect(await sb.nextBroadcast(ours)).toEqual(want);
      // Announced once stored: a read right after the event shows it.
      const o = (await get<ResourceOverview>('/overview', tokenB)).data;
      expect(o.centers.find((c) => c.subCenterId === 'gz-ascend')!.sampledAt).toBe(at);
    } finally {
      sa.ws.terminate();
      sb.ws.terminate();
    }
  });

  it('card-hours per day split run time × cards at midnight (UTC+8), for the caller only', async () => {
    // Fixed times: today 2026-11-24 10:00 +08:00; a task of 2 nodes × 4 cards ran from yesterday 22:00 to 02:00.
    t.clock.now = Date.parse('2026-11-24T10:00:00+08:00');
    const base = { kind: 'training', type: 'train', sub_center_id: 'sz-a100', placement_reason: '', account: 'x', card_type_id: 'a100-80g', image_id: 'i', command: 'c', work_dir: '/', env: '[]', max_duration_min: 600, template_id: null, params: null, mounts: '[]', reason: '', estimated_start: null, job_id: 'j', exit_code: 0, log_path: '/x.log', submit_attempts: 1, create_time: 1, update_time: 1, expiry_warned: 0, waiting_data: 0 };
    await t.app.tasks.repository.insert({ ...base, id: 'ch-1', owner_id: 'u-res-a', name: '跨天', card_num: 4, node_num: 2, state: 'SUCCEEDED', start_time: Date.parse('2026-11-23T22:00:00+08:00'), end_time: Date.parse('2026-11-24T02:00:00+08:00') });
    await t.app.tasks.repository.insert({ ...base, id: 'ch-2', owner_id: 'u-res-b', name: '别人的', card_num: 8, node_num: 1, state: 'SUCCEEDED', start_time: Date.parse('2026-11-24T01:00:00+08:00'), end_time: Date.parse('2026-11-24T03:00:00+08:00') });
    const days = (await get<{ day: string; cardHours: number }[]>('/card-hours?days=3')).data;
    expect(days.map((d) => d.day)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
    // 2 h × 8 cards on each side of midnight; the first test's task adds a few seconds of 2 cards at most.
    expect(days[0].cardHours).toBe(0);
    expect(days[1].cardHours).toBe(16);
    expect(days[2].cardHours).toBeGreaterThanOrEqual(16);
    expect(days[2].cardHours).toBeLessThan(17);
    expect((await get('/card-hours?days=0')).message.code).toBe(1005);
    expect((await get('/overview', null)).message.code).toBe(10133);
  });
});
