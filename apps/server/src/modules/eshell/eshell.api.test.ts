import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ESHELL_BASE,
  SHELL_CLOSE_IDLE,
  SHELL_CLOSE_REFUSED,
  SHELL_TEXT,
  SOCKET_CLOSE_BAD_TOKEN,
  type AccessSessionAdminPage,
  type AccessSessionPage,
  type ShellCenterList,
} from '@suanli/contracts';
import { body, createTestApp, engines, eventually, type TestApp } from '../../../test/harness';
import { openShell, shellUrl, type ShellClient } from '../../../test/shell-client';
import { registerAndLogin } from '../../../test/users';
import { DEFAULT_SHELL_IDLE_MS, DEFAULT_SHELL_MAX_SESSIONS } from './eshell.service';

describe.each(engines)('web shell, local transport (%s)', (engine) => {
  let t: TestApp;
  let port: number;
  const open: ShellClient[] = [];

  const session = (userId: string) => t.app.ctx.sessions.create(userId);
  const shell = async (token: string | undefined, q: Record<string, string | number | undefined> = {}) => {
    const s = await openShell(shellUrl(port, { token, centerId: 'sz-a100', ...q }));
    open.push(s);
    return s;
  };
  const records = async (token: string) =>
    body<AccessSessionPage>(await t.app.inject({ method: 'POST', url: `${ESHELL_BASE}/session/page`, headers: { token }, payload: {} })).data;
  const size = async (s: ShellClient) => {
    const from = s.output().length;
    s.type('echo SZ:$(stty size):END');
    return (await s.waitOutput(/SZ:(\d+ \d+):END/, 15_000, from))[1];
  };

  beforeAll(async () => {
    // The local shell is an explicit opt-in of the deployment (LOCAL_SHELL=true).
    t = await createTestApp(engine, { shell: { local: true } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.ws.terminate();
    t.app.eshell.setOptions({ idleTimeoutMs: DEFAULT_SHELL_IDLE_MS, maxSessionsPerUser: DEFAULT_SHELL_MAX_SESSIONS });
  });
  afterAll(() => t.close());

  it('lists the local shell as offered when the deployment enables it', async () => {
    const { token } = await session('u-sh-list');
    const res = await t.app.inject({ method: 'GET', url: `${ESHELL_BASE}/centers`, headers: { token } });
    const list = body<ShellCenterList>(res).data;
    expect(list.map((c) => [c.centerId, c.transport])).toEqual([
      ['sz-a100', 'local'],
      ['gz-ascend', 'local'],
    ]);
    expect((await t.app.inject({ method: 'GET', url: `${ESHELL_BASE}/centers` })).json().message.code).toBe(10133);
  });

  it('opens a real pty in the home: status lines, pwd, stty size follows resize, exit ends and records the session', async () => {
    const { token } = await session('u-sh-a');
    const s = await shell(token, { cols: 80, rows: 24 });
    const connected = await s.waitStatus((f) => f.state === 'connected');
    expect(s.statuses[0]).toEqual({ type: 'status', state: 'connecting', text: SHELL_TEXT.connecting });
    const account = /（账号 (\w+)）/.exec(connected.text)![1];
    expect(connected.text).toBe(`已连接到 深圳算力分中心 本地终端（账号 ${account}）`);
    // The prompt names the cluster account and the center.
    await s.waitOutput(new RegExp(`${account}@sz-a100:~[$#] `));

    s.type("echo PWD:$(pwd):E''ND");
    const pwd = (await s.waitOutput(/PWD:(\S+):END/))[1];
    expect(pwd).toBe(path.join(t.dataDir, 'centers/sz-a100/home', account));

    expect(await size(s)).toBe('24 80');
    s.send({ type: 'resize', cols: 132, rows: 40 });
    expect(await size(s)).toBe('40 132');
    // Out-of-range sizes are ignored, not applied.
    s.send({ type: 'resize', cols: 0, rows: 99999 });
    expect(await size(s)).toBe('40 132');

    // Input as a binary frame works too.
    s.ws.send(Buffer.from('echo BIN:$((6*7))\r'));
    await s.waitOutput(/BIN:42/);

    const live = await records(token);
    expect(live.list).toEqual([
      expect.objectContaining({ kind: 'shell', centerId: 'sz-a100', centerName: '深圳算力分中心', account, target: 'local', endTime: null, endReason: '' }),
    ]);

    s.type('exit');
    expect(await s.closed).toEqual({ code: 1000, reason: 'exited' });
    expect(s.statuses.at(-1)).toEqual({ type: 'status', state: 'closed', text: SHELL_TEXT.exited });
    const done = await eventually(async () => (await records(token)).list.find((r) => r.endTime !== null));
    expect(done).toMatchObject({ account, endReason: 'exited' });
    expect(done.endTime!).toBeGreaterThanOrEqual(done.startTime);
    expect(t.app.eshell.liveCount()).toBe(0);
  });

  it('keeps what is typed while the shell is still being opened', async () => {
    const { token } = await session('u-sh-early');
    const s = await shell(token);
    s.type('echo EARLY:$((40+2))');
    await s.waitOutput(/EARLY:42/);
    expect(s.statuses.map((f) => f.state)).toEqual(['connecting', 'connected']);
  });

  it('starts in a folder of the home; .. or a missing folder is refused with the code as close reason', async () => {
    const { token } = await session('u-sh-cwd');
    const account = await t.app.ctx.clusterAccounts.ensure('u-sh-cwd', 'sz-a100');
    fs.mkdirSync(path.join(account.homeDir, 'docs/项目'), { recursive: true });
    const s = await shell(token, { cwd: '/docs/项目' });
    s.type("echo PWD:$(pwd):E''ND");
    expect((await s.waitOutput(/PWD:(\S+):END/))[1]).toBe(path.join(account.homeDir, 'docs/项目'));

    for (const [cwd, code] of [
      ['/../other', '1308'],
      ['/docs/../..', '1308'],
      ['docs', '1308'],
      ['/nope', '1302'],
    ]) {
      const r = await shell(token, { cwd });
      expect(await r.closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: code });
    }
    // A symlink out of the home is outside too.
    fs.symlinkSync('/etc', path.join(account.homeDir, 'etc-link'));
    expect(await (await shell(token, { cwd: '/etc-link' })).closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '1308' });
    // Unknown center, bad size.
    expect(await (await shell(token, { centerId: 'nowhere' })).closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '1205' });
    const bad = await shell(token, { cols: 'wide' });
    expect(await bad.closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '1005' });
    expect(bad.statuses.at(-1)?.text).toContain('cols');
  });

  it('closes after the idle timeout with 空闲超时，连接已关闭 and records it', async () => {
    t.app.eshell.setOptions({ idleTimeoutMs: 1_500 });
    const { token } = await session('u-sh-idle');
    const s = await shell(token);
    await s.waitStatus((f) => f.state === 'connected');
    expect(await s.closed).toEqual({ code: SHELL_CLOSE_IDLE, reason: 'idle' });
    expect(s.statuses.at(-1)).toEqual({ type: 'status', state: 'closed', text: SHELL_TEXT.idle });
    expect(await eventually(async () => (await records(token)).list[0]?.endReason === 'idle')).toBe(true);
  });

  it('refuses a logged-out or missing token (4001) and a foreign Origin (403); hangs up when the session is revoked', async () => {
    expect(await (await shell(undefined)).closed).toEqual({ code: SOCKET_CLOSE_BAD_TOKEN, reason: '10133' });
    const gone = await session('u-sh-out');
    await t.app.ctx.sessions.revoke(gone.sessionId, 'logout');
    expect(await (await shell(gone.token)).closed).toEqual({ code: SOCKET_CLOSE_BAD_TOKEN, reason: '10307' });
    await expect(openShell(shellUrl(port, { token: gone.token, centerId: 'sz-a100' }), 'https://evil.example')).rejects.toMatchObject({ status: 403 });
    await expect(openShell(shellUrl(port, { token: gone.token, centerId: 'sz-a100' }), '')).rejects.toMatchObject({ status: 403 });

    const { token, sessionId } = await session('u-sh-rev');
    const s = await shell(token);
    await s.waitStatus((f) => f.state === 'connected');
    await t.app.ctx.sessions.revoke(sessionId, 'logout');
    expect(await s.closed).toEqual({ code: SOCKET_CLOSE_BAD_TOKEN, reason: '10307' });
    expect(s.statuses.at(-1)?.text).toBe(SHELL_TEXT.revoked);
    const other = await session('u-sh-rev');
    expect(await eventually(async () => (await records(other.token)).list[0]?.endReason === 'revoked')).toBe(true);
  });

  it('keeps each user to their own shells and records; limits open shells per user', async () => {
    t.app.eshell.setOptions({ maxSessionsPerUser: 1 });
    const a = await session('u-sh-own-a');
    const b = await session('u-sh-own-b');
    const s = await shell(a.token);
    await s.waitStatus((f) => f.state === 'connected');
    const second = await shell(a.token);
    expect(await second.closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '2250' });
    expect(second.statuses.at(-1)?.text).toBe('打开的终端已达上限，请先关闭其他终端');
    // Another user opens their own and sees only their own records.
    const sb = await shell(b.token);
    const cb = await sb.waitStatus((f) => f.state === 'connected');
    expect(cb.text).not.toContain((await t.app.ctx.clusterAccounts.ensure('u-sh-own-a', 'sz-a100')).account);
    expect((await records(a.token)).list).toHaveLength(1);
    expect((await records(b.token)).list).toHaveLength(1);
    expect((await records(b.token)).list[0].account).toBe((await t.app.ctx.clusterAccounts.ensure('u-sh-own-b', 'sz-a100')).account);
    // Closing the browser's socket hangs the shell up and records `closed`.
    s.ws.close();
    expect(await eventually(async () => (await records(a.token)).list[0]?.endReason === 'closed')).toBe(true);
  });

  it("counts the user's shells on other gateways against the limit, and frees the place when they end there", async () => {
    t.app.eshell.setOptions({ maxSessionsPerUser: 2 });
    const a = await session('u-sh-replica');
    // A shell another gateway holds for this user is an open record on the shared database.
    const other = await t.app.accessLog.open({ kind: 'shell', userId: 'u-sh-replica', centerId: 'sz-a100', account: 'x', target: 'ssh', held: false });
    const s = await shell(a.token);
    await s.waitStatus((f) => f.state === 'connected');
    const third = await shell(a.token);
    expect(await third.closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '2250' });
    await t.app.accessLog.close(other, 'closed');
    const again = await shell(a.token);
    await again.waitStatus((f) => f.state === 'connected');
    // This gateway's own shell closed a moment ago never counts twice: close one and open at once.
    s.ws.close();
    // The gateway has let go of it (the browser may see the close before the gateway does: CI2); its record's
    // end may still be being written.
    expect(await eventually(async () => t.app.eshell.liveCount('u-sh-replica') === 1)).toBe(true);
    const next = await shell(a.token);
    await next.waitStatus((f) => f.state === 'connected');
  });

  it('lists the records of every user to operators only', async () => {
    const a = await session('u-sh-op-a');
    const s = await shell(a.token);
    await s.waitStatus((f) => f.state === 'connected');
    s.ws.close();
    await eventually(async () => (await records(a.token)).list[0]?.endReason === 'closed');

    const admin = (token: string) => t.app.inject({ method: 'POST', url: `${ESHELL_BASE}/admin/session/page`, headers: { token }, payload: { kind: 'shell', pageSize: 100 } });
    const plain = await registerAndLogin(t.app);
    expect(body(await admin(plain.token)).message.code).toBe(1020);
    expect(body(await admin(a.token)).message.code).toBe(1020);

    const op = await registerAndLogin(t.app);
    await t.app.ctx.access.grant(op.user.id, 'operator');
    const all = body<AccessSessionAdminPage>(await admin(op.token)).data;
    const mine = all.list.find((r) => r.userId === 'u-sh-op-a');
    expect(mine).toMatchObject({ kind: 'shell', centerId: 'sz-a100', target: 'local', endReason: 'closed', clientIp: '127.0.0.1' });
    expect(new Set(all.list.map((r) => r.userId)).size).toBeGreaterThan(1);
  });

  it('validates the record list query', async () => {
    const { token } = await session('u-sh-q');
    const res = await t.app.inject({ method: 'POST', url: `${ESHELL_BASE}/session/page`, headers: { token }, payload: { kind: 'ftp' } });
    expect(body(res).message.code).toBe(1005);
  });
});

describe('the local shell is an explicit opt-in (LOCAL_SHELL), never implied by the address', () => {
  const shellCenters = async (t: TestApp) => {
    const { token } = await t.app.ctx.sessions.create('u-sh-optin');
    return { token, list: body<ShellCenterList>(await t.app.inject({ method: 'GET', url: `${ESHELL_BASE}/centers`, headers: { token } })).data };
  };

  it('is off by default on a gateway listening on 127.0.0.1: none offered, the note says why, a socket is refused', async () => {
    const t = await createTestApp('sqlite', { host: '127.0.0.1' });
    const open: ShellClient[] = [];
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { token, list } = await shellCenters(t);
      expect(list.map((c) => c.transport)).toEqual(['none', 'none']);
      expect(list[0].note).toBe('本地终端未开启：仅在管理员为单用户本机部署明确开启时提供；生产部署请通过 SSH 连接分中心登录节点');
      // Asking for one anyway is refused (2251), no shell is started.
      const s = await openShell(shellUrl((t.app.server.address() as AddressInfo).port, { token, centerId: 'sz-a100' }));
      open.push(s);
      const closed = await s.closed;
      expect(closed.code).toBe(SHELL_CLOSE_REFUSED);
      expect(closed.reason).toBe('2251');
      expect(t.app.eshell.liveCount()).toBe(0);
    } finally {
      for (const s of open) s.ws.terminate();
      await t.close();
    }
  });

  it('is off by default on a wide address as well', async () => {
    const t = await createTestApp('sqlite', { host: '0.0.0.0' });
    try {
      const { list } = await shellCenters(t);
      expect(list.every((c) => c.transport === 'none')).toBe(true);
      expect(list[0].note).toContain('本地终端未开启');
    } finally {
      await t.close();
    }
  });

  it('is on only when set, whatever the address', async () => {
    const t = await createTestApp('sqlite', { host: '0.0.0.0', shell: { local: true } });
    try {
      const { list } = await shellCenters(t);
      expect(list.map((c) => c.transport)).toEqual(['local', 'local']);
    } finally {
      await t.close();
    }
  });
});
