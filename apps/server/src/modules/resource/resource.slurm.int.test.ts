import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_BASE, TRAINING_BASE, type ResourceOverview, type TaskDetail } from '@suanli/contracts';
import type { SlurmClusterInfo } from '../../../test/slurm-harness';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * Issue 10, criterion 4: while tasks run and wait on the two harness clusters, 资源概览's numbers equal what
 * Slurm's own tools report — cards and cards in use from `sinfo` (Gres / GresUsed per node), idle nodes,
 * waiting jobs from `squeue`.
 */
const { clusters } = workerSlurmHarness();
const CARD: Record<string, { cardTypeId: string; imageId: string }> = {
  a100: { cardTypeId: 'a100-80g', imageId: 'pytorch-2.3-cuda12' },
  ascend: { cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8' },
};

const cli = (c: SlurmClusterInfo, cmd: string, args: string[]) =>
  execFileSync(cmd, args, { env: { ...process.env, SLURM_CONF: c.slurmConf }, encoding: 'utf8', timeout: 20_000 }).trim();

/** Cards in a gres string like `gpu:a100:2(S:0)` or `gpu:a100:1(IDX:0)`; 0 for `(null)`. */
const gresCount = (s: string) => [...s.matchAll(/gpu:[^:,(]+:(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);

/** What Slurm says about the cluster's card partition. */
function slurmView(c: SlurmClusterInfo) {
  const part = c.partitions[0];
  const nodes = cli(c, 'sinfo', ['-h', '-N', '-p', part, '-O', 'NodeList:40,Gres:60,GresUsed:60'])
    .split('\n')
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/));
  const total = nodes.reduce((n, [, g]) => n + gresCount(g), 0);
  const allocated = nodes.reduce((n, [, , u]) => n + gresCount(u), 0);
  const nodesIdle = nodes.filter(([, , u]) => gresCount(u) === 0).length;
  const queued = cli(c, 'squeue', ['-h', '-t', 'PD', '-p', part, '-o', '%i']).split('\n').filter(Boolean).length;
  const running = cli(c, 'squeue', ['-h', '-t', 'R', '-p', part, '-o', '%i']).split('\n').filter(Boolean).length;
  return { total, allocated, nodesTotal: nodes.length, nodesIdle, queued, running };
}

describe('资源概览 against sinfo/squeue', () => {
  let t: TestApp;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-res-int-'));
    t = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, dir), clock: Date.now });
    token = (await t.app.ctx.sessions.create('u-res-int')).token;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { token } }).then((r) => body(r));

  it('cards, cards in use, idle nodes and waiting jobs equal Slurm\'s own report while tasks run and wait', async () => {
    const started: string[] = [];
    for (const c of clusters) {
      const card = CARD[c.gres[0].type];
      const form = { type: 'train', subCenterId: `slurm-${c.id}`, cardTypeId: card.cardTypeId, nodeNum: 1, imageId: card.imageId, command: 'sleep 90', workDir: '/', env: [], maxDurationMinutes: 5 };
      // One card busy, then a task asking for both that cannot start until it ends.
      const busy = await api('POST', `${TRAINING_BASE}/tasks`, { ...form, name: `占用一张卡 ${c.id}`, cardNum: 1 });
      expect(busy.message.code, busy.message.message).toBe(0);
      await expect.poll(async () => ((await api('GET', `${TRAINING_BASE}/tasks/${busy.data.id}`)).data as TaskDetail).state, { timeout: 60_000, interval: 500 }).toBe('RUNNING');
      const waiting = await api('POST', `${TRAINING_BASE}/tasks`, { ...form, name: `等待两张卡 ${c.id}`, cardNum: 2 });
      expect(waiting.message.code, waiting.message.message).toBe(0);
      await expect.poll(async () => ((await api('GET', `${TRAINING_BASE}/tasks/${waiting.data.id}`)).data as TaskDetail).state, { timeout: 60_000, interval: 500 }).toBe('QUEUED');
      started.push(busy.data.id, waiting.data.id);
    }

    for (const c of clusters) {
      const centerId = `slurm-${c.id}`;
      await t.app.resources.sample(centerId, true);
      const overview = (await api('GET', `${RESOURCE_BASE}/overview`)).data as ResourceOverview;
      const center = overview.centers.find((x) => x.subCenterId === centerId)!;
      const mine = center.cardTypes[0];
      const slurm = slurmView(c);
      expect(slurm).toMatchObject({ total: 2, allocated: 1, nodesIdle: 0, queued: 1, running: 1 });
      expect({ total: mine.total, allocated: mine.allocated, nodesTotal: mine.nodesTotal, nodesIdle: mine.nodesIdle, queued: mine.queued }).toEqual({
        total: slurm.total,
        allocated: slurm.allocated,
        nodesTotal: slurm.nodesTotal,
        nodesIdle: slurm.nodesIdle,
        queued: slurm.queued,
      });
      expect(center.state).toBe('online');
      expect(center.myRunning.map((r) => r.name)).toEqual([`占用一张卡 ${c.id}`]);
    }

    for (const id of started) await api('POST', `${TRAINING_BASE}/tasks/${id}/stop`);
    for (const id of started) {
      await expect.poll(async () => ((await api('GET', `${TRAINING_BASE}/tasks/${id}`)).data as TaskDetail).state, { timeout: 60_000, interval: 500 }).toBe('STOPPED');
    }
    // Once the jobs are gone both sides agree again: every card free.
    for (const c of clusters) {
      await expect.poll(() => slurmView(c).allocated, { timeout: 30_000, interval: 500 }).toBe(0);
      await t.app.resources.sample(`slurm-${c.id}`, true);
      const center = ((await api('GET', `${RESOURCE_BASE}/overview`)).data as ResourceOverview).centers.find((x) => x.subCenterId === `slurm-${c.id}`)!;
      expect(center.cardTypes[0]).toMatchObject({ allocated: 0, idle: slurmView(c).total, queued: 0 });
    }
  });
});
