import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESHELL_BASE, type AccessSession, type AccessSessionPage } from '@suanli/contracts';
import { body, createPgDatabase, createTestApp, engines, eventually, TestClock, type TestApp } from '../../../test/harness';
import { openShell, shellUrl } from '../../../test/shell-client';
import { ACCESS_STALE_MS, GATEWAY_LOST } from './access-log.service';

/**
 * Access records left open by a gateway that died (docs/plan/10.md, "Access records"): three gateways share
 * one database and data dir and one clock. A record is ended only once the gateway holding it stopped
 * renewing it — never because another replica started or swept.
 */
describe.each(engines)('access records of stopped gateways (%s)', (engine) => {
  const clock = new TestClock();
  let dataDir: string;
  let pg: Awaited<ReturnType<typeof createPgDatabase>> | null = null;
  /** a: serves a real shell; b: the replica that sweeps, on a fast renewal timer; c: the one that "crashes". */
  let a: TestApp;
  let b: TestApp;
  let c: TestApp | null;

  const records = async (userId: string): Promise<AccessSession[]> => {
    const { token } = await b.app.ctx.sessions.create(userId);
    return body<AccessSessionPage>(await b.app.inject({ method: 'POST', url: `${ESHELL_BASE}/session/page`, headers: { token }, payload: {} })).data.list;
  };
  const record = async (userId: string, id: string) => (await records(userId)).find((r) => r.id === id);

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    pg = engine === 'postgres' ? await createPgDatabase() : null;
    const shared = { clock: clock.fn, dataDir, databaseUrl: pg?.url };
    // a serves a real local shell: the deployment opts in (LOCAL_SHELL=true).
    a = await createTestApp(engine, { ...shared, shell: { local: true } });
    b = await createTestApp(engine, { ...shared, access: { renewMs: 100 } });
    c = await createTestApp(engine, shared);
    await Promise.all([a.app.ready(), b.app.ready(), c.app.ready()]);
  });
  afterAll(async () => {
    await c?.close();
    await b?.close();
    await a?.close();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('never ends the records of a gateway that is alive, however long its sessions run', async () => {
    await a.app.listen({ host: '127.0.0.1', port: 0 });
    const { token } = await a.app.ctx.sessions.create('u-live');
    const s = await openShell(shellUrl((a.app.server.address() as AddressInfo).port, { token, centerId: 'sz-a100' }));
    await s.waitStatus((f) => f.state === 'connected');
    const shellRecord = await eventually(async () => (await records('u-live')).find((r) => r.kind === 'shell'));
    // A record b itself holds, and one of a without a shell behind it.
    const onB = await b.app.accessLog.open({ kind: 'shell', userId: 'u-live', centerId: 'sz-a100', account: 'x', target: 'ssh', held: true });
    const onA = await a.app.accessLog.open({ kind: 'shell', userId: 'u-live', centerId: 'gz-ascend', account: 'y', target: 'ssh', held: true });

    // Ten minutes in half-minute rounds: each gateway renews its own and sweeps (b also on its timer).
    for (let i = 0; i < 20; i++) {
      clock.advance(30_000);
      await a.app.accessLog.tick();
      await b.app.accessLog.tick();
      await c!.app.accessLog.tick();
    }
    const list = await records('u-live');
    for (const id of [shellRecord.id, onB, onA]) expect(list.find((r) => r.id === id)).toMatchObject({ endTime: null, endReason: '' });
    // The shell still answers.
    s.type('echo ALIVE:$((40+2))');
    await s.waitOutput(/ALIVE:42/);

    // Ended by their own gateways, with their own reasons.
    s.ws.close();
    expect(await eventually(() => record('u-live', shellRecord.id).then((r) => r?.endTime != null && r))).toMatchObject({ endReason: 'closed', endTime: clock.now });
    await a.app.accessLog.close(onA, 'exited');
    await b.app.accessLog.close(onB, 'exited');
  });

  it('a gateway that stopped without ending its shells: another ends them as 网关已停止 at the last renewal, and nothing else', async () => {
    const held = await c!.app.accessLog.open({ kind: 'shell', userId: 'u-crash', centerId: 'sz-a100', account: 'z', target: 'local', held: true });
    // A proxy session is no process's: any replica serves its cookie, and it ends with its task (not held).
    const proxy = await c!.app.accessLog.open({ kind: 'proxy', userId: 'u-crash', centerId: 'sz-a100', account: 'z', target: 'task-1' });
    clock.advance(60_000);
    await c!.app.accessLog.tick();
    const lastSeen = clock.now;
    // "Crash": the process goes away with the records still open (no shell of its own ended them).
    await c!.close();
    c = null;
    expect(await record('u-crash', held)).toMatchObject({ endTime: null });

    // Not yet: a few missed renewals are not a dead gateway.
    clock.advance(ACCESS_STALE_MS - 60_000);
    await b.app.accessLog.tick();
    expect(await record('u-crash', held)).toMatchObject({ endTime: null });

    // Past the limit: b's own timer ends it, at the last moment c was seen.
    clock.advance(2 * 60_000);
    const ended = await eventually(() => record('u-crash', held).then((r) => r?.endTime != null && r));
    expect(ended).toMatchObject({ endTime: lastSeen, endReason: GATEWAY_LOST });
    // The proxy record is not the lease's: the task sweep ends it because task-1 does not run.
    expect(await eventually(() => record('u-crash', proxy).then((r) => r?.endTime != null && r))).toMatchObject({ endReason: 'stopped' });

    // First end wins: a late close from a process that does not hold it does not rewrite it.
    await a.app.accessLog.close(held, 'exited');
    expect(await record('u-crash', held)).toMatchObject({ endTime: lastSeen, endReason: GATEWAY_LOST });
  });

  it('a gateway that was only paused past the limit opens its records again on its next renewal; they end with their own reason', async () => {
    const held = await a.app.accessLog.open({ kind: 'shell', userId: 'u-pause', centerId: 'sz-a100', account: 'p', target: 'local', held: true });
    await a.app.accessLog.tick();
    // a misses its renewals for longer than the limit (paused): b ends the record.
    clock.advance(ACCESS_STALE_MS + 60_000);
    await b.app.accessLog.tick();
    expect(await record('u-pause', held)).toMatchObject({ endReason: GATEWAY_LOST });
    // a wakes up: the shell still runs there, so the record is open again and kept open by its rounds.
    await a.app.accessLog.tick();
    expect(await record('u-pause', held)).toMatchObject({ endTime: null, endReason: '' });
    clock.advance(30_000);
    await b.app.accessLog.tick();
    expect(await record('u-pause', held)).toMatchObject({ endTime: null });
    // Its own end is the one that stays.
    await a.app.accessLog.close(held, 'closed');
    await a.app.accessLog.tick();
    expect(await record('u-pause', held)).toMatchObject({ endTime: clock.now, endReason: 'closed' });
  });
});
