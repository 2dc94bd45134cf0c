import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, encryptPassword, readOutboxCode, registerAndLogin, requestCode } from '../../../test/users';

const WRONG = { code: 1024, message: '用户名或密码错误' };
const LOCKED = { code: 1024, message: '密码错误次数过多，账号已锁定，请15分钟后再试' };

describe.each(engines)('login lockout (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const attempt = async (account: string, password: string) =>
    (await call(t.app, 'POST', 'user/login', { payload: { account, password: await encryptPassword(t.app, password) } })).message;
  const emailOf = async (id: string) =>
    (await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email!;

  it('locks an account for 15 minutes at the 5th failure within 15 minutes, even for the right password', async () => {
    const a = await registerAndLogin(t.app);
    for (let i = 0; i < 4; i++) expect(await attempt(a.user.username, 'Wr0ng-password')).toEqual(WRONG);
    expect(await attempt(a.user.username, 'Wr0ng-password')).toEqual(LOCKED);
    expect(await attempt(a.user.username, a.password)).toEqual(LOCKED);
    t.clock.advance(10 * 60_000);
    expect(await attempt(a.user.username, a.password)).toEqual({ code: 1024, message: '密码错误次数过多，账号已锁定，请5分钟后再试' });
    t.clock.advance(5 * 60_000);
    expect((await attempt(a.user.username, a.password)).code).toBe(0);
  });

  it('locks the account, whichever identifier (username, phone, e-mail) the guesses used', async () => {
    const a = await registerAndLogin(t.app);
    const email = await emailOf(a.user.id);
    for (let i = 0; i < 5; i++) await attempt(email, 'Wr0ng-password');
    expect(await attempt(a.user.username, a.password)).toEqual(LOCKED);
  });

  it('resets the counter on success, and forgets failures older than 15 minutes', async () => {
    const a = await registerAndLogin(t.app);
    for (let i = 0; i < 4; i++) await attempt(a.user.username, 'Wr0ng-password');
    expect((await attempt(a.user.username, a.password)).code).toBe(0);
    for (let i = 0; i < 4; i++) expect(await attempt(a.user.username, 'Wr0ng-password')).toEqual(WRONG);
    t.clock.advance(15 * 60_000 + 1);
    for (let i = 0; i < 4; i++) expect(await attempt(a.user.username, 'Wr0ng-password')).toEqual(WRONG);
    expect((await attempt(a.user.username, a.password)).code).toBe(0);
  });

  it('locks made-up accounts exactly like real ones, so the lock does not reveal which accounts exist', async () => {
    const ghost = `ghost_${randomBytes(4).toString('hex')}`;
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await attempt(ghost, 'Passw0rd-abc'));
    expect(answers).toEqual([WRONG, WRONG, WRONG, WRONG, LOCKED, LOCKED]);
  });

  it('counts undecryptable ciphertexts as failures', async () => {
    const a = await registerAndLogin(t.app);
    for (let i = 0; i < 5; i++) {
      await call(t.app, 'POST', 'user/login', { payload: { account: a.user.username, password: randomBytes(128).toString('base64') } });
    }
    expect(await attempt(a.user.username, a.password)).toEqual(LOCKED);
  });

  it('does not lock other accounts', async () => {
    const a = await registerAndLogin(t.app);
    const b = await registerAndLogin(t.app);
    for (let i = 0; i < 5; i++) await attempt(a.user.username, 'Wr0ng-password');
    expect((await attempt(b.user.username, b.password)).code).toBe(0);
  });

  it('lets no more than 5 guesses through a parallel burst', async () => {
    const a = await registerAndLogin(t.app);
    const cipher = await encryptPassword(t.app, 'Wr0ng-password');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(t.app, 'POST', 'user/login', { payload: { account: a.user.username, password: cipher } })),
    );
    const plainWrong = answers.filter((r) => r.message.message === WRONG.message).length;
    expect(plainWrong).toBeLessThanOrEqual(4);
    expect(answers.every((r) => r.message.code === 1024)).toBe(true);
    expect(await attempt(a.user.username, a.password)).toEqual(LOCKED);
  });

  it('counts wrong old passwords on password update toward the same lock', async () => {
    const a = await registerAndLogin(t.app);
    for (let i = 0; i < 4; i++) {
      const res = await call(t.app, 'POST', 'user/password/update', {
        token: a.token,
        payload: { oldPassword: await encryptPassword(t.app, 'Wr0ng-password'), newPassword: await encryptPassword(t.app, 'N3w-password') },
      });
      expect(res.message).toEqual({ code: 1023, message: '原密码错误' });
    }
    const fifth = await call(t.app, 'POST', 'user/password/update', {
      token: a.token,
      payload: { oldPassword: await encryptPassword(t.app, 'Wr0ng-password'), newPassword: await encryptPassword(t.app, 'N3w-password') },
    });
    expect(fifth.message).toEqual({ code: 1023, message: LOCKED.message });
    expect(await attempt(a.user.username, a.password)).toEqual(LOCKED);
  });

  it('lifts the lock when the password is reset with a code', async () => {
    const a = await registerAndLogin(t.app);
    for (let i = 0; i < 5; i++) await attempt(a.user.username, 'Wr0ng-password');
    expect(await attempt(a.user.username, a.password)).toEqual(LOCKED);
    const email = await emailOf(a.user.id);
    t.clock.advance(61_000);
    await requestCode(t.app, 'reset', email);
    const code = await readOutboxCode(t.app, email, 'reset');
    const res = await call(t.app, 'POST', 'user/password/reset', { payload: { target: email, code, newPassword: await encryptPassword(t.app, 'Res3t-password') } });
    expect(res.message.code).toBe(0);
    expect((await attempt(a.user.username, 'Res3t-password')).code).toBe(0);
  });

  /** A login from a given client address (inject's remoteAddress; trustProxy is off, so it is req.ip). */
  const attemptFrom = async (ip: string, account: string, password: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/user/api/v1/user/login',
      remoteAddress: ip,
      payload: { account, password: await encryptPassword(t.app, password) },
    });
    return JSON.parse(res.body).message as { code: number; message: string };
  };

  it("does not let a stranger's five wrong passwords lock the user out: the lock holds for the stranger's address", async () => {
    const a = await registerAndLogin(t.app);
    for (let i = 0; i < 4; i++) expect(await attemptFrom('10.66.0.1', a.user.username, 'Wr0ng-password')).toEqual(WRONG);
    expect(await attemptFrom('10.66.0.1', a.user.username, 'Wr0ng-password')).toEqual(LOCKED);
    // The stranger is locked, even with the right password…
    expect(await attemptFrom('10.66.0.1', a.user.username, a.password)).toEqual(LOCKED);
    // …the user is not: from the address they signed in from, nor from a new one.
    expect((await attempt(a.user.username, a.password)).code).toBe(0);
    expect((await attemptFrom('10.66.0.2', a.user.username, a.password)).code).toBe(0);
  });

  it('locks the account for new addresses after 20 failures from many addresses, never for the user\'s own address', async () => {
    const a = await registerAndLogin(t.app);
    const answers = [];
    for (let n = 0; n < 4; n++) for (let i = 0; i < 5; i++) answers.push(await attemptFrom(`10.77.0.${n + 1}`, a.user.username, 'Wr0ng-password'));
    expect(answers.at(-1)).toEqual(LOCKED);
    // Brute force across addresses is bounded: a fifth address is refused before its first guess counts.
    expect(await attemptFrom('10.77.0.99', a.user.username, a.password)).toEqual(LOCKED);
    // The user's own address (a session was created from it) still gets in.
    expect((await attempt(a.user.username, a.password)).code).toBe(0);
    t.clock.advance(15 * 60_000 + 1);
    expect((await attemptFrom('10.77.0.99', a.user.username, a.password)).code).toBe(0);
  });

  it('locks made-up accounts across addresses like real ones (the account-wide limit reveals nothing either)', async () => {
    const ghost = `ghost_${randomBytes(4).toString('hex')}`;
    for (let n = 0; n < 4; n++) for (let i = 0; i < 5; i++) await attemptFrom(`10.88.0.${n + 1}`, ghost, 'Wr0ng-password');
    expect(await attemptFrom('10.88.0.99', ghost, 'Wr0ng-password')).toEqual(LOCKED);
  });
});
