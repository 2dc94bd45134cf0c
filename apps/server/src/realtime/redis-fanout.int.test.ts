import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, createPgDatabase, createTestApp, REDIS_URL, type TestApp } from '../../test/harness';
import { startGateway, stopProcess } from '../../test/process';
import { closedWithin, connect, wsUrl } from '../../test/ws-client';

const increment = (count: number) => ({ businessType: 'notice.unread.increment', data: { count } });

/** Gateway B: the real entry point (`src/main.ts`) in its own OS process; resolves with its port. */
/**
 * Two gateway processes sharing one PostgreSQL database and one Redis: a message created in process A
 * reaches the socket a user holds on process B, and a broadcast (a resource sample) every socket on both. A unique channel keeps parallel runs on the same Redis apart.
 */
describe('live updates across gateway processes (Redis)', () => {
  const channel = `suanli:test:${randomBytes(6).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-fanout-'));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let a: TestApp;
  let b: { child: ChildProcess; port: number };
  let portA: number;

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    a = await createTestApp('postgres', { databaseUrl: pgDb.url, redisUrl: REDIS_URL, redisChannel: channel, dataDir });
    await a.app.listen({ host: '127.0.0.1', port: 0 });
    portA = (a.app.server.address() as AddressInfo).port;
    b = await startGateway({
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: pgDb.url,
      REDIS_URL,
      REDIS_CHANNEL: channel,
      DATA_DIR: dataDir,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
    });
    // Both processes must be subscribed before anything is published (a publish reaches only live subscribers).
    const probe = new Redis(REDIS_URL);
    try {
      for (let i = 0; i < 100; i++) {
        const [, n] = (await probe.pubsub('NUMSUB', channel)) as [string, number];
        if (Number(n) >= 2) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(Number(((await probe.pubsub('NUMSUB', channel)) as [string, number])[1])).toBe(2);
    } finally {
      probe.disconnect();
    }
  });

  afterAll(async () => {
    if (b) await stopProcess(b.child);
    await a?.close();
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers an increment raised by notify() in process A to the user\'s socket on process B, exactly once on each', async () => {
    const userId = `u-fanout-${randomBytes(4).toString('hex')}`;
    const { token } = await a.app.ctx.sessions.create(userId);
    const onB = await connect(wsUrl(b.port, token));
    const onA = await connect(wsUrl(portA, token));
    const stranger = await connect(wsUrl(b.port, (await a.app.ctx.sessions.create('u-fanout-other')).token));
    try {
      await a.app.ctx.notify(userId, { type: 'task', title: '任务运行成功', content: '跨进程推送' });
      expect(await onB.next()).toEqual(increment(1));
      expect(await onA.next()).toEqual(increment(1));

      // The message itself is in the shared database: B's HTTP API counts it.
      const res = await fetch(`http://127.0.0.1:${b.port}/gateway/foundation/api/v1/message/unview/count`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ startTime: 0 }),
      });
      expect(body({ body: await res.text() }).data).toBe(1);

      // A second event proves ordering and that A did not also receive its own publish back from Redis.
      await a.app.ctx.notify(userId, { type: 'system', title: '第二条', content: '' });
      for (let i = 0; i < 60 && onB.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      expect(onB.messages).toEqual([increment(1), increment(1)]);
      expect(onA.messages).toEqual([increment(1), increment(1)]);
      expect(stranger.messages).toEqual([]);
    } finally {
      for (const s of [onA, onB, stranger]) s.ws.terminate();
    }
  });

  it('broadcasts a resource sample stored in process A to the sockets of every user on both processes, once each', async () => {
    const [x, y] = await Promise.all(['u-fanout-res-x', 'u-fanout-res-y'].map((u) => a.app.ctx.sessions.create(u)));
    const socks = await Promise.all([connect(wsUrl(b.port, x.token)), connect(wsUrl(b.port, y.token)), connect(wsUrl(portA, x.token))]);
    try {
      // A time no real sample has (B samples on its own real clock too).
      a.clock.advance(3 * 3600_000);
      const at = a.clock.now;
      await a.app.resources.sample('gz-ascend', true);
      const want = { businessType: 'resource.sampled', data: { centerId: 'gz-ascend', sampledAt: at } };
      const ours = (m: typeof want) => m.data.centerId === 'gz-ascend' && m.data.sampledAt === at;
      for (const s of socks) expect(await s.nextBroadcast(ours)).toEqual(want);
      await new Promise((r) => setTimeout(r, 200));
      for (const s of socks) expect(s.broadcasts.filter((m) => ours(m as typeof want))).toHaveLength(1);
    } finally {
      for (const s of socks) s.ws.terminate();
    }
  });

  it('refuses on process B (4001, 10307) a token revoked through process A', async () => {
    const { token, sessionId } = await a.app.ctx.sessions.create('u-fanout-rev');
    const before = await connect(wsUrl(b.port, token));
    expect(await closedWithin(before, 200)).toBeNull();
    before.ws.terminate();
    await a.app.ctx.sessions.revoke(sessionId, 'logout');
    const after = await connect(wsUrl(b.port, token));
    expect(await closedWithin(after, 2_000)).toEqual({ code: 4001, reason: '10307' });
  });

  it('closes at once (4001, 10307) the socket on process B of a session revoked through process A, and pushes nothing to it', async () => {
    const userId = `u-fanout-live-${randomBytes(4).toString('hex')}`;
    const victim = await a.app.ctx.sessions.create(userId);
    const kept = await a.app.ctx.sessions.create(userId);
    const onB = await connect(wsUrl(b.port, victim.token));
    const keptOnB = await connect(wsUrl(b.port, kept.token));
    const onA = await connect(wsUrl(portA, victim.token));
    try {
      expect(await closedWithin(onB, 200)).toBeNull();
      // B re-checks sessions only once a minute: closing within half a second can only come from the bus.
      await a.app.ctx.sessions.revoke(victim.sessionId, 'logout');
      await a.app.ctx.notify(userId, { type: 'system', title: '已退出', content: '' });
      expect(await closedWithin(onB, 500)).toEqual({ code: 4001, reason: '10307' });
      expect(await closedWithin(onA, 500)).toEqual({ code: 4001, reason: '10307' });
      expect(await keptOnB.next()).toEqual(increment(1));
      expect(onB.messages).toEqual([]);
      expect(onA.messages).toEqual([]);
    } finally {
      for (const s of [onA, onB, keptOnB]) s.ws.terminate();
    }
  });
});
