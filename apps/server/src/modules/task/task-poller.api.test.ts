import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE, type Task, type TaskDetail } from '@suanli/contracts';
import { body, createPgDatabase, createTestApp, engines, type TestApp } from '../../../test/harness';
import { trainingForm } from '../../../test/training-form';
import { LeaseRepository } from '../../db/lease.repository';
import { newId } from '../../lib/id';
import { TaskPoller } from './task-poller';
import type { TaskRow } from './task.repository';

const quiet = { info: () => {}, warn: () => {} };

/** One poller per center across replicas, through the lease table, on both engines. */
describe.each(engines)('poller leases (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('a lease has one holder until it runs out, then the next taker gets it', async () => {
    const leases = new LeaseRepository(t.app.ctx.db);
    expect(await leases.acquire('x', 'a', 1000, 500)).toBe(true);
    expect(await leases.acquire('x', 'b', 1200, 500)).toBe(false);
    expect(await leases.acquire('x', 'a', 1300, 500)).toBe(true); // renewed until 1800
    expect(await leases.acquire('x', 'b', 1700, 500)).toBe(false);
    expect(await leases.acquire('x', 'b', 1801, 500)).toBe(true);
    expect(await leases.acquire('x', 'a', 1900, 500)).toBe(false);
    await leases.release('x', 'a'); // not the holder: no effect
    expect(await leases.acquire('x', 'a', 1950, 500)).toBe(false);
    await leases.release('x', 'b');
    expect(await leases.acquire('x', 'a', 1960, 500)).toBe(true);
  });

  it('two replicas: exactly one polls each center; when it dies the other takes over after the lease', async () => {
    let now = 10_000;
    const clock = () => now;
    const polls: string[] = [];
    // Centers with tasks to watch (the body answers true): polled at every tick.
    const make = (holder: string) =>
      new TaskPoller(
        ['c1', 'c2'],
        new LeaseRepository(t.app.ctx.db),
        async (id) => {
          polls.push(`${holder}:${id}`);
          return true;
        },
        clock,
        quiet,
        { holder, leaseMs: 6000 },
      );
    const p1 = make('g1');
    const p2 = make('g2');
    await p1.tick();
    await p2.tick();
    for (let i = 0; i < 5; i++) {
      now += 1000;
      await Promise.all([p1.tick(), p2.tick()]);
    }
    expect(p1.isLeading('c1') && p1.isLeading('c2')).toBe(true);
    expect(p2.isLeading('c1') || p2.isLeading('c2')).toBe(false);
    expect(polls.filter((x) => x.startsWith('g2'))).toEqual([]);
    expect(polls.filter((x) => x === 'g1:c1')).toHaveLength(6);

    // g1 dies without handing over (SIGKILL): g2 takes both centers once the lease has run out.
    polls.length = 0;
    let takeover = -1;
    for (let s = 1; s <= 10; s++) {
      now += 1000;
      await p2.tick();
      if (takeover < 0 && p2.isLeading('c1') && p2.isLeading('c2')) takeover = s;
    }
    expect(takeover).toBeGreaterThan(0);
    expect(takeover).toBeLessThanOrEqual(7);
    expect(polls).toContain('g2:c1');

    // A clean stop hands over at once.
    await p2.stop();
    await p1.tick();
    expect(p1.isLeading('c1')).toBe(true);
    await p1.stop();
  });

  it('a center with nothing to watch is polled again only after its idle period, or at the tick after a wake', async () => {
    const polls: string[] = [];
    let watching = false;
    let wakeDuringPoll = false;
    const p = new TaskPoller(
      ['c3'],
      new LeaseRepository(t.app.ctx.db),
      async (id) => {
        polls.push(id);
        // A task event while the poll runs (a task stored just after the poll's query).
        if (wakeDuringPoll) p.wake();
        wakeDuringPoll = false;
        return watching;
      },
      () => 50_000,
      quiet,
      { holder: 'idler', leaseMs: 6000, idleMs: 600_000 },
    );
    await p.tick();
    await p.tick();
    await p.tick();
    expect(polls).toHaveLength(1); // nothing to watch: idle for 10 minutes
    p.wake();
    watching = true;
    await p.tick();
    await p.tick();
    expect(polls).toHaveLength(3); // woken, then tasks to watch: every tick
    watching = false;
    await p.tick();
    await p.tick();
    expect(polls).toHaveLength(4); // idle again
    p.wake();
    wakeDuringPoll = true;
    await p.tick(); // finds nothing, but was woken meanwhile: the next tick polls
    await p.tick();
    expect(polls).toHaveLength(6);
    expect(p.isLeading('c3')).toBe(true);
    await p.stop();
  });

  it("an app's idle centers are woken by a task's state change: a task submitted runs to its end", async () => {
    // An idle period far beyond the test: without the wake the task would stay 排队中.
    const idle = await createTestApp(engine, { compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000, idlePollMs: 600_000 } });
    try {
      const userId = 'u-idle';
      const { token } = await idle.app.ctx.sessions.create(userId);
      const acc = await idle.app.ctx.clusterAccounts.ensure(userId, 'sz-a100');
      fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
      await idle.app.ready();
      // Both centers polled once, found nothing and went idle.
      await expect.poll(() => idle.app.tasks.poller.isLeading('sz-a100') && idle.app.tasks.poller.isLeading('gz-ascend'), { timeout: 5_000, interval: 50 }).toBe(true);
      await new Promise((r) => setTimeout(r, 600));
      const form = trainingForm({ name: 'idle-wake', command: 'echo woken' });
      const res = body<Task>(await idle.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks`, payload: form, headers: { token } }));
      expect(res.message.code, res.message.message).toBe(0);
      const state = async () => body<TaskDetail>(await idle.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${res.data.id}`, headers: { token } })).data.state;
      await expect.poll(state, { timeout: 20_000, interval: 100 }).toBe('SUCCEEDED');
    } finally {
      await idle.close();
    }
  });
});

/**
 * A gateway that dies between storing a task (CREATED) and submitting it (TaskService.create) leaves the row
 * CREATED with no job. The next gateway's poller submits it, once across replicas. The row is stored here
 * through the repository exactly as create stores it, with no submit after it — the fault.
 */
describe.each(engines)('a task left CREATED by a dead gateway (%s)', (engine) => {
  const userId = 'u-stranded';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-stranded-'));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  const apps: TestApp[] = [];
  // The gateways share the database and the data dir (storage, the local executor's state): one deployment.
  // On SQLite two processes writing the one file at once may see SQLITE_BUSY (the loser's conditional move then
  // fails instead of answering false, and the winner submits): logged as a warning, kept out of the output.
  const gateway = async (holder: string) => {
    const t = await createTestApp(engine, { dataDir, databaseUrl: pgDb?.url, logLevel: 'error', compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000, holder } });
    apps.push(t);
    return t;
  };

  beforeAll(async () => {
    if (engine === 'postgres') pgDb = await createPgDatabase();
  });
  // Each test's gateways end with it, also when it fails: a live poller left behind would submit the next
  // test's rows on its own clock.
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });
  afterAll(async () => {
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  /** What TaskService.create inserts before it submits (a train task on the A100 center), `age` ms old. */
  async function storeCreated(t: TestApp, name: string, age: number, over: Partial<TaskRow> = {}): Promise<TaskRow> {
    const account = await t.app.ctx.clusterAccounts.ensure(userId, 'sz-a100');
    const now = t.clock.now - age;
    const id = newId(now);
    const row: TaskRow = {
      id,
      owner_id: userId,
      kind: 'training',
      type: 'train',
      name,
      sub_center_id: 'sz-a100',
      placement_reason: '',
      account: account.account,
      card_type_id: 'a100-80g',
      card_num: 1,
      node_num: 1,
      image_id: 'pytorch-2.3-cuda12',
      command: `echo ${name}`,
      work_dir: '/',
      env: '[]',
      max_duration_min: 10,
      template_id: null,
      params: null,
      mounts: '[]',
      state: 'CREATED',
      reason: '',
      estimated_start: null,
      job_id: null,
      exit_code: null,
      log_path: `/suanli-${id}.log`,
      submit_attempts: 0,
      create_time: now,
      update_time: now,
      start_time: null,
      end_time: null,
      expiry_warned: 0,
      waiting_data: 0,
      exec_host: null,
      client_request_id: null,
      reason_code: null,
      exit_signal: null,
      job_usage: null,
      resubmitted_from: null,
      ...over,
    };
    expect(await t.app.tasks.repository.insert(row)).toBe(true);
    return row;
  }
  const detail = async (t: TestApp, id: string) => {
    const { token } = await t.app.ctx.sessions.create(userId);
    return body<TaskDetail>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}`, headers: { token } })).data;
  };

  it('the next gateway submits it within a poll after its start: one job, and the timeline says why', async () => {
    const dead = await gateway('dead');
    // The dead gateway's poller is stopped first: the insert is the last thing it did before it died.
    await dead.app.tasks.poller.stop();
    const row = await storeCreated(dead, 'stranded', 5_000);
    await dead.close();
    apps.splice(apps.indexOf(dead), 1);

    const fresh = await gateway('fresh');
    // Started as a gateway starts (listen makes it ready): its poller begins. Timed from ready, not from before
    // it: on a loaded machine plugin start-up alone took a second, which says nothing about the poller.
    await fresh.app.ready();
    const started = Date.now();
    await expect
      .poll(async () => (await fresh.app.tasks.repository.get(row.id))?.job_id ?? null, { timeout: 5_000, interval: 50 })
      .not.toBeNull();
    // The row was older than the retry interval at the start: the first polls submit it (200 ms apart).
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect.poll(async () => (await detail(fresh, row.id)).state, { timeout: 20_000, interval: 100 }).toBe('SUCCEEDED');
    const d = await detail(fresh, row.id);
    expect(d.jobId).toBeTruthy();
    // (Events of one moment of the test's fixed clock: compared as a set.)
    expect(d.events.map((e) => e.state).sort()).toEqual(expect.arrayContaining(['CREATED', 'QUEUED', 'SUBMITTING', 'SUCCEEDED']));
    expect(d.events.filter((e) => e.state === 'SUBMITTING')).toEqual([expect.objectContaining({ reason: '网关在提交前中断，已自动继续提交' })]);
    expect((await fresh.app.tasks.repository.get(row.id))!.submit_attempts).toBe(1);
    const log = await fresh.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${row.id}/log`, headers: { token: (await fresh.app.ctx.sessions.create(userId)).token } });
    expect(body(log).data.content).toContain('stranded');
  });

  it('two replicas polling at once submit it exactly once; a task just stored or waiting for data is left alone', async () => {
    const [g1, g2] = [await gateway('g1'), await gateway('g2')];
    // One clock for both (each test app has its own, fixed until advanced).
    g2.clock.now = g1.clock.now;
    // Their pollers are stopped: the test drives both replicas' polls at the same moment (a lease handover).
    await Promise.all([g1.app.tasks.poller.stop(), g2.app.tasks.poller.stop()]);
    const stranded = await storeCreated(g1, 'race', 5_000);
    const justStored = await storeCreated(g1, 'just-stored', 0);
    const waiting = await storeCreated(g1, 'waiting', 60_000, { waiting_data: 1, reason: '等待数据同步' });

    await Promise.all([g1.app.tasks.service.poll('sz-a100'), g2.app.tasks.service.poll('sz-a100'), g1.app.tasks.service.poll('sz-a100')]);
    await expect.poll(async () => (await g1.app.tasks.repository.get(stranded.id))?.job_id ?? null, { timeout: 10_000, interval: 50 }).not.toBeNull();
    // Both replicas' submits settle before the count.
    await new Promise((r) => setTimeout(r, 500));
    const events = await g1.app.tasks.repository.events(stranded.id);
    expect(events.filter((e) => e.state === 'SUBMITTING')).toHaveLength(1);
    expect(events.filter((e) => e.state === 'QUEUED')).toHaveLength(1);
    expect((await g1.app.tasks.repository.get(stranded.id))!.submit_attempts).toBe(1);

    expect((await g1.app.tasks.repository.get(justStored.id))!.state).toBe('CREATED');
    expect((await g1.app.tasks.repository.get(waiting.id))!).toMatchObject({ state: 'CREATED', job_id: null, waiting_data: 1 });
  });
});
