import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, type AuditEntry } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../test/harness';
import { call, encryptWith, registerAndLogin, rsaPublicKey } from '../../test/users';
import { SESSION_CACHE_MS } from '../modules/auth/session.service';
import { openAdminTools, runAdminCommand, type AdminTools } from './admin-command';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');

/** `npm run admin -- …` as someone at the server types it, with the gateway's environment. */
function npmAdmin(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', 'admin', '--', ...args], { cwd: repoRoot, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe.each(engines)('npm run admin -- operator … (%s)', (engine) => {
  let t: TestApp;
  let tools: AdminTools;
  let closeTools: () => Promise<void>;
  let operator: { token: string; id: string };
  const lines: { out: string[]; err: string[] } = { out: [], err: [] };
  const io = { out: (l: string) => lines.out.push(l), err: (l: string) => lines.err.push(l) };
  const actor = { kind: 'command' as const, id: null, name: 'root@test-host', ip: null };
  const run = (...args: string[]) => {
    lines.out = [];
    lines.err = [];
    return runAdminCommand(args, tools, io, actor);
  };
  const roles = async (token: string) => (await call(t.app, 'GET', 'user', { token })).data.roles;
  /** The gateway sees a role changed by another process once its cached verification ends. */
  const afterCache = async <T>(f: () => Promise<T>) => {
    t.clock.advance(SESSION_CACHE_MS + 1);
    return f();
  };
  const audit = async (targetId: string) =>
    (await call<{ list: AuditEntry[] }>(t.app, 'POST', `${ADMIN_BASE}/audit-logs/action/page`, { token: operator.token, payload: { target: targetId } })).data.list.reverse();

  beforeAll(async () => {
    t = await createTestApp(engine);
    // The command's own connection to the gateway's database, as a separate process would open it.
    ({ tools, close: closeTools } = await openAdminTools({ databaseUrl: t.config.databaseUrl, dataDir: t.dataDir, clock: Date.now }));
    const o = await registerAndLogin(t.app);
    operator = { token: o.token, id: o.user.id };
  });
  afterAll(async () => {
    await closeTools?.();
    await t?.close();
  });

  it('makes the first operator: the role reaches the running gateway, one audit entry names the command', async () => {
    expect(await run('operator', 'list')).toBe(0);
    expect(lines.out).toEqual(['还没有运营人员。设置第一位：npm run admin -- operator add <用户名>']);
    expect(await run('operator', 'add', (await call(t.app, 'GET', 'user', { token: operator.token })).data.username.toUpperCase())).toBe(0);
    expect(lines.out[0]).toMatch(/^已将 \w+ 设为运营人员（已写入审计日志）$/);
    expect(await afterCache(() => roles(operator.token))).toEqual(['user', 'operator']);
    const [entry, ...more] = await audit(operator.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      actorKind: 'command',
      actorId: null,
      actorName: 'root@test-host',
      action: 'role.grant',
      targetType: 'user',
      targetId: operator.id,
      before: JSON.stringify({ roles: ['user'] }),
      after: JSON.stringify({ roles: ['user', 'operator'] }),
      reason: '',
      ip: null,
    });
    // Granting again changes nothing and writes nothing.
    expect(await run('operator', 'add', entry.targetName)).toBe(0);
    expect(lines.out).toEqual([`${entry.targetName} 已是运营人员，未做更改`]);
    expect(await audit(operator.id)).toHaveLength(1);
    expect(await run('operator', 'list')).toBe(0);
    expect(lines.out[0]).toBe('运营人员（1 名）：');
    expect(lines.out[1]).toMatch(new RegExp(`^  ${entry.targetName}\\t`));
  });

  it('removes an operator (entry with before/after) and refuses unknown users and bad usage', async () => {
    const u = await registerAndLogin(t.app);
    expect(await run('operator', 'remove', u.user.username)).toBe(0);
    expect(lines.out).toEqual([`${u.user.username} 不是运营人员，未做更改`]);
    expect(await run('operator', 'add', u.user.username)).toBe(0);
    expect(await run('operator', 'remove', u.user.username)).toBe(0);
    expect(lines.out).toEqual([`已撤销 ${u.user.username} 的运营人员角色（已写入审计日志）`]);
    expect(await afterCache(() => roles(u.token))).toEqual(['user']);
    expect((await audit(u.user.id)).map((e) => [e.action, e.before, e.after])).toEqual([
      ['role.grant', '{"roles":["user"]}', '{"roles":["user","operator"]}'],
      ['role.revoke', '{"roles":["user","operator"]}', '{"roles":["user"]}'],
    ]);
    expect(await run('operator', 'add', 'no_such_user_here')).toBe(1);
    expect(lines.err).toEqual(['没有用户名为 no_such_user_here 的账号（请先在控制台注册）']);
    for (const bad of [[], ['operator'], ['operator', 'add'], ['operator', 'grant', 'x'], ['user', 'add', 'x'], ['operator', 'list', 'x']]) {
      expect(await run(...bad), bad.join(' ')).toBe(2);
      expect(lines.err[0]).toBe('用法：');
    }
  });

  it('rotates the login RSA key: served at once, the old key decrypts until retired, the served one cannot be retired (audited)', async () => {
    const u = await registerAndLogin(t.app);
    const loginWith = async (password: string) => (await call(t.app, 'POST', 'user/login', { payload: { account: u.user.username, password } })).message;
    // A client that fetched the key before the rotation (the gateway has it parsed already).
    const oldCipher = encryptWith(await rsaPublicKey(t.app), u.password);
    expect(await run('rsa', 'list')).toBe(0);
    const [oldLine, ...others] = lines.out.slice(1);
    expect(oldLine).toMatch(/^ {2}\S+\tSHA256:[A-Za-z0-9+/]{43}\t创建于 \S+Z\t下发中$/);
    const oldId = oldLine.trim().split('\t')[0];

    expect(await run('rsa', 'rotate')).toBe(0);
    const [, newId, fingerprint] = /^已生成新的 RSA 密钥 (\S+)（指纹 (SHA256:\S+)），网关从现在起下发它（已写入审计日志）$/.exec(lines.out[0]) ?? [];
    expect(newId).toBeTruthy();
    const created = (await tools.rsa.list()).find((k) => k.id === newId)!;
    expect(created).toMatchObject({ fingerprint, served: true, retired: false });
    // The gateway is another process to the command: a password encrypted with the new key (as a client that
    // fetched it from another replica) decrypts there before this gateway has served it even once…
    expect((await loginWith(encryptWith(created.publicPem, u.password))).code).toBe(0);
    // …the gateway serves it from now on, and the old key still decrypts.
    expect(await rsaPublicKey(t.app)).toBe(created.publicPem);
    expect((await loginWith(oldCipher)).code).toBe(0);

    expect(await run('rsa', 'list')).toBe(0);
    expect(lines.out[0]).toBe(`RSA 密钥（${others.length + 2} 把，最新的在前）：`);
    expect(lines.out[1]).toMatch(new RegExp(`^  ${newId}\\t${fingerprint.replace(/[+/]/g, '\\$&')}\\t创建于 \\S+Z\\t下发中$`));
    expect(lines.out[2]).toMatch(new RegExp(`^  ${oldId}\\t.+\\t未下发，仍可解密$`));
    expect(lines.out.join('\n')).not.toMatch(/PRIVATE|BEGIN/);

    expect(await run('rsa', 'retire', newId)).toBe(1);
    expect(lines.err).toEqual([`RSA 密钥 ${newId} 正在下发，不能停用：请先用 npm run admin -- rsa rotate 生成新密钥`]);
    expect(await run('rsa', 'retire', 'no_such_key')).toBe(1);
    expect(lines.err).toEqual(['没有编号为 no_such_key 的 RSA 密钥（npm run admin -- rsa list 列出全部）']);
    expect(await run('rsa', 'retire', oldId)).toBe(0);
    expect(lines.out).toEqual([`已停用 RSA 密钥 ${oldId}：用它加密的密码不再能解密（已写入审计日志）`]);
    // At once on the running gateway: the old ciphertext is refused like any undecryptable password.
    expect(await loginWith(oldCipher)).toEqual({ code: 1024, message: '用户名或密码错误' });
    expect((await loginWith(encryptWith(created.publicPem, u.password))).code).toBe(0);
    expect(await run('rsa', 'retire', oldId)).toBe(0);
    expect(lines.out).toEqual([`RSA 密钥 ${oldId} 已停用，未做更改`]);
    expect(await run('rsa', 'list')).toBe(0);
    expect(lines.out[2]).toMatch(new RegExp(`^  ${oldId}\\t.+\\t已停用$`));

    expect((await audit(newId)).map((e) => [e.actorKind, e.actorName, e.action, e.targetType, e.targetName, e.before, e.after])).toEqual([
      ['command', 'root@test-host', 'rsaKey.rotate', 'rsaKey', fingerprint, JSON.stringify({ servedKey: oldId }), JSON.stringify({ servedKey: newId })],
    ]);
    expect((await audit(oldId)).map((e) => [e.actorKind, e.action, e.before, e.after])).toEqual([['command', 'rsaKey.retire', '{"keyState":"active"}', '{"keyState":"retired"}']]);
    for (const bad of [['rsa'], ['rsa', 'retire'], ['rsa', 'rotate', 'x'], ['rsa', 'list', 'x'], ['rsa', 'retire', 'a', 'b'], ['rsa', 'delete', 'a']]) {
      expect(await run(...bad), bad.join(' ')).toBe(2);
      expect(lines.err[0]).toBe('用法：');
    }
  });

  it('runs as the documented npm script against the database the environment names', async () => {
    const u = await registerAndLogin(t.app);
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    if (t.config.databaseUrl) env.DATABASE_URL = t.config.databaseUrl;
    const added = await npmAdmin(['operator', 'add', u.user.username], env);
    expect([added.code, added.stderr.trim()]).toEqual([0, '']);
    expect(added.stdout).toContain(`已将 ${u.user.username} 设为运营人员（已写入审计日志）`);
    expect(await afterCache(() => roles(u.token))).toEqual(['user', 'operator']);
    const [entry] = await audit(u.user.id);
    expect(entry).toMatchObject({ actorKind: 'command', action: 'role.grant', targetName: u.user.username });
    expect(entry.actorName).toMatch(/^.+@.+$/);
    const listed = await npmAdmin(['operator', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`  ${u.user.username}\t`);
    // A wrong setting stops it naming the variable, as it stops the gateway (exit code 2).
    const wrong = await npmAdmin(['operator', 'list'], { ...env, PORT: 'abc' });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('PORT must be an integer');
    // Three `npm run admin` processes, each starting npm and tsx: 10–20 s apiece on a loaded 2-core CI machine
    // (CI19 passed the api tier's 30 s with the second one).
  }, 90_000);
});
