import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, encryptPassword, login, readOutbox, readOutboxCode, registerAndLogin, requestCode } from '../../../test/users';
import { dayStart } from './verification-code.rules';

const freshPhone = () => `1${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`;
const freshEmail = () => `c_${randomBytes(5).toString('hex')}@test.local`;
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe.each(engines)('verification codes and contact changes (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const enc = (pw: string) => encryptPassword(t.app, pw);
  const registerWith = async (email: string, code: string) =>
    call(t.app, 'POST', 'user/register', {
      payload: { username: `r_${randomBytes(5).toString('hex')}`, password: await enc('Passw0rd-abc'), email, code, agreement: true },
    });

  it('writes a 6-digit code to the outbox and stores only a salted hash of it', async () => {
    const email = freshEmail();
    const res = await requestCode(t.app, 'register', email);
    expect(res.message).toEqual({ code: 0, message: '操作成功' });
    expect(res.data).toBeNull();
    const line = readOutbox(t.app).filter((l) => l.target === email).at(-1)!;
    expect(line).toMatchObject({ target: email, scene: 'register', code: expect.stringMatching(/^\d{6}$/) });
    expect(line.time).toEqual(expect.any(Number));
    expect(line.text).toContain(line.code!);
    expect(line.text).toContain('5 分钟内有效');
    const rows = await t.app.ctx.db.selectFrom('verification_codes').selectAll().where('target', '=', email).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].code_hash).toMatch(/^[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(rows[0].code_hash).not.toContain(line.code!);
    expect(rows[0].expire_time - rows[0].create_time).toBe(5 * 60_000);
  });

  it('sends at most once per target per 60 s and says how long to wait; other targets are not affected', async () => {
    const email = freshEmail();
    expect((await requestCode(t.app, 'register', email)).message.code).toBe(0);
    expect((await requestCode(t.app, 'register', email)).message).toEqual({ code: 1020, message: '验证码发送过于频繁，请60秒后再试' });
    t.clock.advance(35_000);
    expect((await requestCode(t.app, 'register', email)).message.message).toBe('验证码发送过于频繁，请25秒后再试');
    // The limit is per target, not per scene.
    expect((await requestCode(t.app, 'reset', email)).message.code).toBe(1020);
    expect((await requestCode(t.app, 'register', freshEmail())).message.code).toBe(0);
    t.clock.advance(25_000);
    expect((await requestCode(t.app, 'register', email)).message.code).toBe(0);
  });

  it('sends at most 10 codes per target per calendar day (UTC+8)', async () => {
    // Start just after midnight in China so ten sends a minute apart stay within one day.
    t.clock.now = dayStart(t.clock.now) + 86_400_000 + 1000;
    const phone = freshPhone();
    for (let i = 0; i < 10; i++) {
      expect((await requestCode(t.app, 'register', phone)).message.code, `send ${i + 1}`).toBe(0);
      t.clock.advance(61_000);
    }
    expect((await requestCode(t.app, 'register', phone)).message).toEqual({ code: 1020, message: '今日获取验证码次数已达上限（10次），请明天再试' });
    t.clock.now = dayStart(t.clock.now) + 86_400_000;
    expect((await requestCode(t.app, 'register', phone)).message.code).toBe(0);
  });

  it('accepts a code once only', async () => {
    const email = freshEmail();
    await requestCode(t.app, 'register', email);
    const code = await readOutboxCode(t.app, email, 'register');
    expect((await registerWith(email, code)).message.code).toBe(0);
    const a = await registerAndLogin(t.app);
    const phone = freshPhone();
    await requestCode(t.app, 'updatePhone', phone, a.token);
    const phoneCode = await readOutboxCode(t.app, phone, 'updatePhone');
    expect((await call(t.app, 'POST', 'user/action/update-phone', { token: a.token, payload: { phone, code: phoneCode } })).message.code).toBe(0);
    const b = await registerAndLogin(t.app);
    await t.app.ctx.db.updateTable('users').set({ phone: null }).where('id', '=', a.user.id).execute();
    const reuse = await call(t.app, 'POST', 'user/action/update-phone', { token: b.token, payload: { phone, code: phoneCode } });
    expect(reuse.message).toEqual({ code: 1026, message: '验证码已失效，请重新获取' });
  });

  it('counts wrong tries and kills the code at the 5th, even for the right code afterwards', async () => {
    const email = freshEmail();
    await requestCode(t.app, 'register', email);
    const code = await readOutboxCode(t.app, email, 'register');
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await registerWith(email, otherCode(code));
      expect(res.message.code).toBe(1026);
      answers.push(res.message.message);
    }
    expect(answers).toEqual(['验证码错误，还可尝试4次', '验证码错误，还可尝试3次', '验证码错误，还可尝试2次', '验证码错误，还可尝试1次', '验证码错误次数过多，已失效，请重新获取']);
    expect((await registerWith(email, code)).message).toEqual({ code: 1026, message: '验证码已失效，请重新获取' });
  });

  it('counts an undecryptable password as a try, so one code cannot be used to probe the decryption', async () => {
    const email = freshEmail();
    await requestCode(t.app, 'register', email);
    const code = await readOutboxCode(t.app, email, 'register');
    for (let i = 0; i < 5; i++) {
      const res = await call(t.app, 'POST', 'user/register', {
        payload: { username: `p_${randomBytes(5).toString('hex')}`, password: randomBytes(128).toString('base64'), email, code, agreement: true },
      });
      expect(res.message.code).toBe(1005);
      expect(res.message.message).toContain('password');
    }
    expect((await registerWith(email, code)).message).toEqual({ code: 1026, message: '验证码已失效，请重新获取' });
  });

  it('expires a code after 5 minutes', async () => {
    const a = freshEmail();
    await requestCode(t.app, 'register', a);
    const codeA = await readOutboxCode(t.app, a, 'register');
    const b = freshEmail();
    await requestCode(t.app, 'register', b);
    const codeB = await readOutboxCode(t.app, b, 'register');
    t.clock.advance(5 * 60_000 - 1000);
    expect((await registerWith(a, codeA)).message.code).toBe(0);
    t.clock.advance(1000);
    expect((await registerWith(b, codeB)).message).toEqual({ code: 1026, message: '验证码已失效，请重新获取' });
  });

  it('retires the previous code when a new one is sent', async () => {
    const email = freshEmail();
    await requestCode(t.app, 'register', email);
    const first = await readOutboxCode(t.app, email, 'register');
    t.clock.advance(61_000);
    await requestCode(t.app, 'register', email);
    const second = await readOutboxCode(t.app, email, 'register');
    if (first !== second) expect((await registerWith(email, first)).message.code).toBe(1026);
    expect((await registerWith(email, second)).message.code).toBe(0);
  });

  it('refuses a register code for a phone or e-mail already registered (1206)', async () => {
    const a = await registerAndLogin(t.app);
    const email = (await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', a.user.id).executeTakeFirstOrThrow()).email!;
    expect((await requestCode(t.app, 'register', email.toUpperCase())).message).toEqual({ code: 1206, message: '该邮箱已被注册' });
  });

  it('answers 1005 naming the field for a bad scene or target', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ scene: 'hack', target: freshEmail() }, 'scene'],
      [{ scene: 'register' }, 'target'],
      [{ scene: 'register', target: 'not a target' }, 'target'],
      [{ scene: 'register', target: '1234' }, 'target'],
    ];
    for (const [payload, field] of cases) {
      const res = await call(t.app, 'POST', 'user/code', { payload });
      expect(res.message.code, JSON.stringify(payload)).toBe(1005);
      expect(res.message.message).toContain(field);
    }
    const a = await registerAndLogin(t.app);
    const wrongKind = await requestCode(t.app, 'updatePhone', freshEmail(), a.token);
    expect(wrongKind.message).toEqual({ code: 1005, message: '参数校验失败：target 应为手机号' });
    expect((await requestCode(t.app, 'bindEmail', freshPhone(), a.token)).message).toEqual({ code: 1005, message: '参数校验失败：target 应为邮箱地址' });
  });

  describe('POST /user/action/update-phone', () => {
    it('changes the phone with a code sent to the new phone; login by the new phone works, the old does not', async () => {
      const a = await registerAndLogin(t.app);
      const first = freshPhone();
      await requestCode(t.app, 'updatePhone', first, a.token);
      let res = await call(t.app, 'POST', 'user/action/update-phone', { token: a.token, payload: { phone: first, code: await readOutboxCode(t.app, first, 'updatePhone') } });
      expect(res.message.code).toBe(0);
      expect(res.data).toMatchObject({ id: a.user.id, phone: `${first.slice(0, 3)}****${first.slice(-4)}` });
      const second = freshPhone();
      await requestCode(t.app, 'updatePhone', second, a.token);
      res = await call(t.app, 'POST', 'user/action/update-phone', { token: a.token, payload: { phone: second, code: await readOutboxCode(t.app, second, 'updatePhone') } });
      expect(res.message.code).toBe(0);
      expect((await login(t.app, second, a.password)).user.id).toBe(a.user.id);
      const old = await call(t.app, 'POST', 'user/login', { payload: { account: first, password: await enc(a.password) } });
      expect(old.message.code).toBe(1024);
      expect((await call(t.app, 'GET', 'user', { token: a.token })).data.phone).toBe(`${second.slice(0, 3)}****${second.slice(-4)}`);
    });

    it("refuses another user's phone (1206) at the code request and at the change, and the caller's current phone", async () => {
      const a = await registerAndLogin(t.app);
      const b = await registerAndLogin(t.app);
      const phone = freshPhone();
      await requestCode(t.app, 'updatePhone', phone, a.token);
      await call(t.app, 'POST', 'user/action/update-phone', { token: a.token, payload: { phone, code: await readOutboxCode(t.app, phone, 'updatePhone') } });
      expect((await requestCode(t.app, 'updatePhone', phone, b.token)).message).toEqual({ code: 1206, message: '该手机号已被其他账号使用' });
      expect((await call(t.app, 'POST', 'user/action/update-phone', { token: b.token, payload: { phone, code: '000000' } })).message.code).toBe(1206);
      expect((await requestCode(t.app, 'updatePhone', phone, a.token)).message).toEqual({ code: 1206, message: '新手机号与当前绑定的相同' });
      // B still has no phone.
      expect((await call(t.app, 'GET', 'user', { token: b.token })).data.phone).toBeNull();
    });

    it('refuses a wrong code (1026) and answers 1005 naming the field', async () => {
      const a = await registerAndLogin(t.app);
      const phone = freshPhone();
      await requestCode(t.app, 'updatePhone', phone, a.token);
      const code = await readOutboxCode(t.app, phone, 'updatePhone');
      expect((await call(t.app, 'POST', 'user/action/update-phone', { token: a.token, payload: { phone, code: otherCode(code) } })).message.code).toBe(1026);
      for (const [payload, field] of [
        [{ phone: '2345', code }, 'phone'],
        [{ phone, code: '12' }, 'code'],
        [{ code }, 'phone'],
      ] as const) {
        const res = await call(t.app, 'POST', 'user/action/update-phone', { token: a.token, payload });
        expect(res.message.code).toBe(1005);
        expect(res.message.message).toContain(field);
      }
    });
  });

  describe('POST /user/action/bind-email', () => {
    it('binds an e-mail (stored lower-case) to an account registered by phone; login by it works', async () => {
      const phone = freshPhone();
      await requestCode(t.app, 'register', phone);
      const username = `b_${randomBytes(5).toString('hex')}`;
      const reg = await call(t.app, 'POST', 'user/register', {
        payload: { username, phone, password: await enc('Passw0rd-abc'), code: await readOutboxCode(t.app, phone, 'register'), agreement: true },
      });
      expect(reg.message.code).toBe(0);
      const { token } = await login(t.app, phone, 'Passw0rd-abc');
      const email = freshEmail();
      await requestCode(t.app, 'bindEmail', email.toUpperCase(), token);
      const code = await readOutboxCode(t.app, email, 'bindEmail');
      const res = await call(t.app, 'POST', 'user/action/bind-email', { token, payload: { email: email.toUpperCase(), code } });
      expect(res.message.code).toBe(0);
      expect(res.data).toMatchObject({ username, email: `${email[0]}***@test.local` });
      expect((await login(t.app, email, 'Passw0rd-abc')).user.username).toBe(username);
    });

    it("refuses another user's e-mail (1206), a wrong code (1026), and answers 1005 naming the field", async () => {
      const a = await registerAndLogin(t.app);
      const b = await registerAndLogin(t.app);
      const aEmail = (await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', a.user.id).executeTakeFirstOrThrow()).email!;
      expect((await requestCode(t.app, 'bindEmail', aEmail, b.token)).message).toEqual({ code: 1206, message: '该邮箱已被其他账号使用' });
      expect((await call(t.app, 'POST', 'user/action/bind-email', { token: b.token, payload: { email: aEmail, code: '000000' } })).message.code).toBe(1206);
      const email = freshEmail();
      await requestCode(t.app, 'bindEmail', email, b.token);
      const code = await readOutboxCode(t.app, email, 'bindEmail');
      expect((await call(t.app, 'POST', 'user/action/bind-email', { token: b.token, payload: { email, code: otherCode(code) } })).message.code).toBe(1026);
      const bad = await call(t.app, 'POST', 'user/action/bind-email', { token: b.token, payload: { email: 'nope', code } });
      expect(bad.message.code).toBe(1005);
      expect(bad.message.message).toContain('email');
      // A's e-mail is unchanged and B's unchanged too.
      expect((await call(t.app, 'GET', 'user', { token: a.token })).data.email).toBe(a.user.email);
      expect((await call(t.app, 'GET', 'user', { token: b.token })).data.email).toBe(b.user.email);
    });
  });
});
