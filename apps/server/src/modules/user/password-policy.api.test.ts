import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_SPACE_TEXT } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, encryptPassword, login, readOutboxCode, registerAndLogin, requestCode } from '../../../test/users';
import { DEMO_ACCOUNT } from '../../seed';
import { PASSWORD_REUSED_TEXT, PASSWORD_WEAK_TEXT, passwordPolicyProblem } from './password-policy';

const invalid = (field: string, reason: string) => ({ code: 1005, message: `参数校验失败：${field} ${reason}` });

describe('passwordPolicyProblem', () => {
  it('passes the demo password and the shared test passwords', async () => {
    for (const p of [DEMO_ACCOUNT.password, 'Passw0rd-test', 'Start-2046-qiyue', 'Changed-5678-huanle']) {
      expect(await passwordPolicyProblem(p, { userInputs: [] }), p).toBeNull();
    }
  });

  it("refuses guessable passwords, and the account's own names as the guessable part", async () => {
    for (const p of ['aaaaaaa1', 'Passw0rd', 'Abcd1234', 'qwerty123', 'password1', '12345678a']) {
      expect(await passwordPolicyProblem(p, { userInputs: [] }), p).toBe(PASSWORD_WEAK_TEXT);
    }
    expect(await passwordPolicyProblem('Zhangwei_1988', { userInputs: [] })).toBeNull();
    expect(await passwordPolicyProblem('Zhangwei_1988', { userInputs: ['zhangwei_1988'] })).toBe(PASSWORD_WEAK_TEXT);
  });
});

/** Issue 7's probe: `aaaaaaa1`, blanks around the password and the previous password were accepted. */
describe.each(engines)('password policy on register, update and reset (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());
  const enc = (pw: string) => encryptPassword(t.app, pw);

  it('register refuses a weak password and leading/trailing blanks, naming the field', async () => {
    const email = `p_${randomBytes(5).toString('hex')}@test.local`;
    expect((await requestCode(t.app, 'register', email)).message.code).toBe(0);
    const code = await readOutboxCode(t.app, email, 'register');
    const attempt = async (password: string) =>
      (await call(t.app, 'POST', 'user/register', { payload: { username: `p_${randomBytes(4).toString('hex')}`, password: await enc(password), email, code, agreement: true } })).message;
    expect(await attempt('aaaaaaa1')).toEqual(invalid('password', PASSWORD_WEAK_TEXT));
    expect(await attempt(' Qiyue-2046-pad')).toEqual(invalid('password', PASSWORD_SPACE_TEXT));
    expect(await attempt('Qiyue-2046-pad ')).toEqual(invalid('password', PASSWORD_SPACE_TEXT));
    expect((await attempt('Qiyue-2046-pad')).code).toBe(0);
  });

  it('update refuses a weak password and the current one; a strong new one works', async () => {
    const a = await registerAndLogin(t.app);
    const update = async (newPassword: string) =>
      (await call(t.app, 'POST', 'user/password/update', { token: a.token, payload: { oldPassword: await enc(a.password), newPassword: await enc(newPassword) } })).message;
    expect(await update('aaaaaaa1')).toEqual(invalid('newPassword', PASSWORD_WEAK_TEXT));
    expect(await update(`${a.password} `)).toEqual(invalid('newPassword', PASSWORD_SPACE_TEXT));
    expect(await update(a.password)).toEqual(invalid('newPassword', PASSWORD_REUSED_TEXT));
    expect((await update('Qiyue-2046-upd')).code).toBe(0);
    expect((await login(t.app, a.user.username, 'Qiyue-2046-upd')).user.id).toBe(a.user.id);
  });

  it('reset refuses the current password and a weak one; the code stays usable for a good one', async () => {
    const a = await registerAndLogin(t.app);
    const email = (await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', a.user.id).executeTakeFirstOrThrow()).email!;
    t.clock.advance(61_000); // the register code went to the same address: one code per minute
    expect((await requestCode(t.app, 'reset', email)).message.code).toBe(0);
    const code = await readOutboxCode(t.app, email, 'reset');
    const reset = async (newPassword: string) =>
      (await call(t.app, 'POST', 'user/password/reset', { payload: { target: email, code, newPassword: await enc(newPassword) } })).message;
    expect(await reset(a.password)).toEqual(invalid('newPassword', PASSWORD_REUSED_TEXT));
    expect(await reset('aaaaaaa1')).toEqual(invalid('newPassword', PASSWORD_WEAK_TEXT));
    expect((await reset('Qiyue-2046-rst')).code).toBe(0);
    expect((await login(t.app, a.user.username, 'Qiyue-2046-rst')).user.id).toBe(a.user.id);
  });
});
