import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, USER_BASE } from '@suanli/contracts';
import { createPgDatabase, createTestApp, REDIS_URL, type TestApp } from '../../../test/harness';
import { listeningPort, startProcess, stopProcess } from '../../../test/process';
import { encryptPassword, registerAndLogin } from '../../../test/users';
import { closedWithin, connect, wsUrl } from '../../../test/ws-client';
import { serverEntryArgs } from '../../../test/server-bundle';

const repoRoot = path.resolve(import.meta.dirname, '../../../../..');

/** One JSON call over real HTTP to a gateway. */
async function http(port: number, method: 'GET' | 'POST', url: string, opts: { token?: string; payload?: unknown } = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: { ...(opts.token ? { token: opts.token } : {}), ...(opts.payload === undefined ? {} : { 'content-type': 'application/json' }) },
    body: opts.payload === undefined ? undefined : JSON.stringify(opts.payload),
  });
  return (await res.json()) as { message: { code: number; message: string }; data: any };
}

/**
 * Issue 20, acceptance 2: an operator disables a user who is signed in on two gateway processes (one
 * PostgreSQL database, one Redis). Both gateways refuse the user's tokens and close the user's sockets
 * within a second, and neither lets the user log in again.
 */
describe('disabling an account across gateway processes (PostgreSQL + Redis)', () => {
  const channel = `suanli:test:${randomBytes(6).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-disable-'));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let a: TestApp;
  let b: { child: ChildProcess; port: number };
  let portA: number;

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    a = await createTestApp('postgres', { databaseUrl: pgDb.url, redisUrl: REDIS_URL, redisChannel: channel, dataDir });
    await a.app.listen({ host: '127.0.0.1', port: 0 });
    portA = (a.app.server.address() as AddressInfo).port;
    const { child, info } = await startProcess(process.execPath, await serverEntryArgs('main.ts'), {
      cwd: repoRoot,
      env: { HOST: '127.0.0.1', PORT: '0', DATABASE_URL: pgDb.url, REDIS_URL, REDIS_CHANNEL: channel, DATA_DIR: dataDir, SEED_DEMO: 'false', LOG_LEVEL: 'info' },
      ready: listeningPort,
    });
    b = { child, port: info };
    // Both processes subscribed before anything is published (a publish reaches only live subscribers).
    const probe = new Redis(REDIS_URL);
    try {
      for (let i = 0; i < 100; i++) {
        if (Number(((await probe.pubsub('NUMSUB', channel)) as [string, number])[1]) >= 2) break;
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

  it('both gateways refuse the tokens and close the sockets within a second; login is refused on both; enabling lets them back in', async () => {
    const op = await registerAndLogin(a.app);
    await a.app.ctx.access.grant(op.user.id, 'operator');
    const victim = await registerAndLogin(a.app);
    const loginOn = async (port: number) =>
      http(port, 'POST', `${USER_BASE}/user/login`, { payload: { account: victim.user.username, password: await encryptPassword(a.app, victim.password) } });

    // A session made on each gateway, each holding a socket there (and both verified there just now, so each
    // gateway has the session in its verification cache: what ends it must be the revocation, not the cache).
    const onA = victim.token;
    const onB = (await loginOn(b.port)).data.token as string;
    expect((await http(portA, 'GET', `${USER_BASE}/user`, { token: onA })).message.code).toBe(0);
    expect((await http(b.port, 'GET', `${USER_BASE}/user`, { token: onB })).message.code).toBe(0);
    const socketA = await connect(wsUrl(portA, onA));
    const socketB = await connect(wsUrl(b.port, onB));
    // A second socket of the A-session held on B: a session is the user's on every gateway.
    const socketBofA = await connect(wsUrl(b.port, onA));
    try {
      expect(await closedWithin(socketB, 200)).toBeNull();

      const disabled = await http(portA, 'POST', `${ADMIN_BASE}/users/${victim.user.id}/disable`, { token: op.token, payload: { reason: '验收' } });
      expect(disabled.message.code).toBe(0);
      const closes = await Promise.all([socketA, socketB, socketBofA].map((s) => closedWithin(s, 1_000)));
      expect(closes).toEqual([
        { code: 4001, reason: '10307' },
        { code: 4001, reason: '10307' },
        { code: 4001, reason: '10307' },
      ]);
      for (const port of [portA, b.port]) {
        for (const token of [onA, onB]) expect((await http(port, 'GET', `${USER_BASE}/user`, { token })).message.code).toBe(10307);
        expect((await loginOn(port)).message).toEqual({ code: 1027, message: '账号已被禁用，如有疑问请联系平台运营人员' });
        // A new socket with an old token is refused too.
        expect(await closedWithin(await connect(wsUrl(port, onB)), 1_000)).toEqual({ code: 4001, reason: '10307' });
      }

      // Enabled through the other gateway (the operator's token works there too): login works on both.
      expect((await http(b.port, 'POST', `${ADMIN_BASE}/users/${victim.user.id}/enable`, { token: op.token, payload: {} })).message.code).toBe(0);
      for (const port of [portA, b.port]) expect((await loginOn(port)).message.code).toBe(0);
      const entries = (await http(b.port, 'POST', `${ADMIN_BASE}/audit-logs/action/page`, { token: op.token, payload: { target: victim.user.id } })).data.list;
      expect(entries.map((e: any) => [e.action, e.actorName])).toEqual([
        ['user.enable', op.user.username],
        ['user.disable', op.user.username],
      ]);
    } finally {
      for (const s of [socketA, socketB, socketBofA]) s.ws.terminate();
    }
  });
});
