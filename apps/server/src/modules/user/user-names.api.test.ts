import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, encryptPassword, login, readOutboxCode, registerAndLogin, requestCode } from '../../../test/users';
import { UserRepository } from './user.repository';

/** Issue 7's probe: usernames differing only in case, nicknames with invisible or direction characters. */
describe.each(engines)('usernames and nicknames (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  async function register(username: string, nickname?: string) {
    const email = `n_${randomBytes(5).toString('hex')}@test.local`;
    expect((await requestCode(t.app, 'register', email)).message.code).toBe(0);
    const code = await readOutboxCode(t.app, email, 'register');
    return call(t.app, 'POST', 'user/register', {
      payload: { username, password: await encryptPassword(t.app, 'Qiyue-2046-names'), email, code, agreement: true, nickname },
    });
  }

  it('keeps usernames unique regardless of case; status and login by username ignore case', async () => {
    const name = `alice_${randomBytes(3).toString('hex')}`;
    const first = await register(name);
    expect(first.message.code).toBe(0);

    const twin = await register(name.toUpperCase());
    expect(twin.message).toEqual({ code: 1206, message: '该用户名已被注册' });
    const status = await call(t.app, 'PUT', 'check_status/user', { payload: { field: 'username', value: name.toUpperCase() } });
    expect(status.data).toEqual({ exists: true });

    const { user } = await login(t.app, name.toUpperCase(), 'Qiyue-2046-names');
    expect(user.id).toBe(first.data.id);
    // The name is shown as it was registered.
    expect(user.username).toBe(name);

    // The database itself refuses a twin (two registrations racing past the check above).
    const repo = new UserRepository(t.app.ctx.db);
    const raced = await repo.insert({ id: `u-race-${randomBytes(3).toString('hex')}`, username: name.replace('alice', 'ALICE'), nickname: 'x', phone: null, email: null, passwordHash: 'x', now: Date.now() });
    expect(raced).toBe(false);
  });

  it('refuses nicknames with bidi overrides, zero-width or other control/format characters (1005 naming the field)', async () => {
    const { token } = await registerAndLogin(t.app);
    const text = '参数校验失败：nickname 不能包含控制字符、零宽字符或文字方向控制符';
    for (const bad of ['abc\u202Egpj.exe', 'ad\u200Bmin', 'a\u200Db', '\u2066x\u2069', 'x\u0007', 'x\u007f', 'x\uFEFFy', 'a\u2028b', 'a\uE000b']) {
      const res = await call(t.app, 'POST', 'user/action/update-profile', { token, payload: { nickname: bad } });
      expect(res.message, JSON.stringify(bad)).toEqual({ code: 1005, message: text });
    }
    const fine = await call(t.app, 'POST', 'user/action/update-profile', { token, payload: { nickname: '算力 达人 🚀 Zoë' } });
    expect(fine.message.code).toBe(0);
    expect(fine.data.nickname).toBe('算力 达人 🚀 Zoë');

    const atRegister = await register(`bob_${randomBytes(3).toString('hex')}`, 'bob\u202E');
    expect(atRegister.message).toEqual({ code: 1005, message: text });
  });
});
