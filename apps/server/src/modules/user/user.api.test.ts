// Over 400 lines: one describe per user route, all on one app per engine; a file per route would start a gateway and database each.
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, encryptPassword, encryptWith, login, readOutbox, readOutboxCode, registerAndLogin, requestCode } from '../../../test/users';
import { SESSION_CACHE_MS } from '../auth/session.service';

const freshPhone = () => `1${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`;
const freshEmail = () => `m_${randomBytes(5).toString('hex')}@Example.COM`;
const freshName = (prefix = 'u') => `${prefix}_${randomBytes(5).toString('hex')}`;

describe.each(engines)('user api (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const enc = (pw: string) => encryptPassword(t.app, pw);

  /** Registers through the real flow with a phone or an e-mail; answers the register call's result. */
  async function register(opts: { username?: string; password?: string; phone?: string; email?: string; nickname?: string } = {}) {
    const username = opts.username ?? freshName();
    const password = opts.password ?? 'Passw0rd-abc';
    const target = opts.phone ?? opts.email ?? freshEmail();
    const isPhone = !!opts.phone;
    expect((await requestCode(t.app, 'register', target)).message.code).toBe(0);
    const code = await readOutboxCode(t.app, isPhone ? target : target.toLowerCase(), 'register');
    const res = await call(t.app, 'POST', 'user/register', {
      payload: { username, password: await enc(password), [isPhone ? 'phone' : 'email']: target, code, agreement: true, nickname: opts.nickname },
    });
    return { res, username, password, target };
  }

  describe('GET /user/rsa-key', () => {
    it('serves a 1024-bit RSA public key (e = 65537) as PEM SPKI without a token', async () => {
      const res = await call(t.app, 'GET', 'user/rsa-key');
      expect(res.message.code).toBe(0);
      expect(res.data.keySize).toBe(1024);
      expect(res.data.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/);
      const key = createPublicKey(res.data.publicKey);
      expect(key.asymmetricKeyType).toBe('rsa');
      expect(key.asymmetricKeyDetails).toMatchObject({ modulusLength: 1024, publicExponent: 65537n });
    });

    it('is shared by a second gateway process on the same database, and a rotated key is served while the old one still decrypts', async () => {
      const first = (await call(t.app, 'GET', 'user/rsa-key')).data.publicKey;
      const { username, password } = await register();
      const oldCipher = await enc(password);

      const other = await createTestApp(engine, { dataDir: t.dataDir, databaseUrl: t.config.databaseUrl });
      try {
        expect((await call(other.app, 'GET', 'user/rsa-key')).data.publicKey).toBe(first);

        // Rotation = a new active row; a fresh process serves it at once.
        const pair = generateKeyPairSync('rsa', {
          modulusLength: 1024,
          publicKeyEncoding: { type: 'spki', format: 'pem' },
          privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        });
        await t.app.ctx.db
          .insertInto('rsa_keys')
          .values({ id: `rot_${randomBytes(4).toString('hex')}`, public_pem: pair.publicKey, private_pem: pair.privateKey, active: 1, create_time: t.clock.now + 1 })
          .execute();
        const third = await createTestApp(engine, { dataDir: t.dataDir, databaseUrl: t.config.databaseUrl });
        try {
          expect((await call(third.app, 'GET', 'user/rsa-key')).data.publicKey).toBe(pair.publicKey);
          const withNew = await call(third.app, 'POST', 'user/login', { payload: { account: username, password: encryptWith(pair.publicKey, password) } });
          expect(withNew.message.code).toBe(0);
          const withOld = await call(third.app, 'POST', 'user/login', { payload: { account: username, password: oldCipher } });
          expect(withOld.message.code).toBe(0);
        } finally {
          await third.close();
        }
      } finally {
        await other.close();
        await t.app.ctx.db.deleteFrom('rsa_keys').where('id', 'like', 'rot_%').execute();
      }
    });
  });

  describe('PUT /check_status/user', () => {
    it('tells whether a username, phone or e-mail (any case) is taken', async () => {
      const phone = freshPhone();
      const { username } = await register({ phone });
      const email = freshEmail();
      await register({ email });
      const check = async (field: string, value: string) => (await call(t.app, 'PUT', 'check_status/user', { payload: { field, value } })).data;
      expect(await check('username', username)).toEqual({ exists: true });
      expect(await check('username', freshName())).toEqual({ exists: false });
      expect(await check('phone', phone)).toEqual({ exists: true });
      expect(await check('phone', freshPhone())).toEqual({ exists: false });
      expect(await check('email', email.toUpperCase())).toEqual({ exists: true });
      expect(await check('email', freshEmail())).toEqual({ exists: false });
    });

    it('answers 1005 naming the field', async () => {
      const bad = await call(t.app, 'PUT', 'check_status/user', { payload: { field: 'password', value: 'x' } });
      expect(bad.message.code).toBe(1005);
      expect(bad.message.message).toContain('field');
      const empty = await call(t.app, 'PUT', 'check_status/user', { payload: { field: 'username', value: '' } });
      expect(empty.message.code).toBe(1005);
      expect(empty.message.message).toContain('value');
    });
  });

  describe('POST /user/register', () => {
    it('registers with an e-mail code, stores an argon2id hash, and the account logs in by username and by e-mail', async () => {
      const { res, username, password, target } = await register({ nickname: '小明' });
      expect(res.message).toEqual({ code: 0, message: '操作成功' });
      expect(res.data).toEqual({ id: expect.any(String), username });
      const row = await t.app.ctx.db.selectFrom('users').selectAll().where('id', '=', res.data.id).executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row.password_hash).not.toContain(password);
      expect(row.email).toBe(target.toLowerCase());
      expect(row.nickname).toBe('小明');
      expect((await login(t.app, username, password)).user.username).toBe(username);
      expect((await login(t.app, target.toUpperCase(), password)).user.username).toBe(username);
    });

    it('registers with a phone code and logs in by phone; the nickname defaults to the username', async () => {
      const phone = freshPhone();
      const { res, username, password } = await register({ phone });
      expect(res.message.code).toBe(0);
      const { user } = await login(t.app, phone, password);
      expect(user).toMatchObject({ username, nickname: username, phone: `${phone.slice(0, 3)}****${phone.slice(-4)}`, email: null });
    });

    it('answers 1005 naming the field for every kind of invalid input', async () => {
      const email = freshEmail().toLowerCase();
      await requestCode(t.app, 'register', email);
      const code = await readOutboxCode(t.app, email, 'register');
      const base = { username: freshName(), password: await enc('Passw0rd-abc'), email, code, agreement: true };
      const cases: [Record<string, unknown>, string][] = [
        [{ username: 'ab' }, 'username'],
        [{ username: 'bad name!' }, 'username'],
        [{ username: '13800000000' }, 'username'],
        [{ password: await enc('short1') }, 'password'],
        [{ password: await enc('onlyletters') }, 'password'],
        [{ password: await enc('1234567890') }, 'password'],
        [{ password: await enc(`a1${'x'.repeat(63)}`) }, 'password'],
        [{ password: 'bm90IGVuY3J5cHRlZA==' }, 'password'],
        [{ password: undefined }, 'password'],
        [{ agreement: false }, 'agreement'],
        [{ code: '12345' }, 'code'],
        [{ email: 'not-an-email' }, 'email'],
        [{ phone: '12345' }, 'phone'],
        [{ phone: freshPhone() }, 'email'],
        [{ email: undefined }, 'phone'],
      ];
      for (const [patch, field] of cases) {
        const res = await call(t.app, 'POST', 'user/register', { payload: { ...base, ...patch } });
        expect(res.message.code, JSON.stringify(patch)).toBe(1005);
        expect(res.message.message, JSON.stringify(patch)).toContain(field);
      }
      // None of that consumed the code (one undecryptable try was counted): the valid request still works.
      expect((await call(t.app, 'POST', 'user/register', { payload: base })).message.code).toBe(0);
    });

    it('refuses a taken username (1206) and a wrong code (1026)', async () => {
      const { username } = await register();
      const email = freshEmail().toLowerCase();
      await requestCode(t.app, 'register', email);
      const code = await readOutboxCode(t.app, email, 'register');
      const taken = await call(t.app, 'POST', 'user/register', { payload: { username, password: await enc('Passw0rd-abc'), email, code, agreement: true } });
      expect(taken.message).toEqual({ code: 1206, message: '该用户名已被注册' });
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      const bad = await call(t.app, 'POST', 'user/register', { payload: { username: freshName(), password: await enc('Passw0rd-abc'), email, code: wrong, agreement: true } });
      expect(bad.message.code).toBe(1026);
      expect(bad.message.message).toMatch(/^验证码错误/);
    });

    it('does not accept a code sent to another target or for another scene', async () => {
      const a = freshEmail().toLowerCase();
      const b = freshEmail().toLowerCase();
      await requestCode(t.app, 'register', a);
      const codeA = await readOutboxCode(t.app, a, 'register');
      const res = await call(t.app, 'POST', 'user/register', { payload: { username: freshName(), password: await enc('Passw0rd-abc'), email: b, code: codeA, agreement: true } });
      expect(res.message.code).toBe(1026);
    });
  });

  describe('POST /user/login', () => {
    it('answers UserInfo with masked phone/e-mail and a new token per login; both sessions work', async () => {
      const phone = freshPhone();
      const { username, password } = await register({ phone });
      const s1 = await login(t.app, username, password);
      const s2 = await login(t.app, username, password);
      expect(s1.token).not.toBe(s2.token);
      expect(s1.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(s1.user).toMatchObject({ username, phone: `${phone.slice(0, 3)}****${phone.slice(-4)}`, roles: ['user'], headImage: null });
      expect(JSON.stringify(s1.user)).not.toContain(phone);
      for (const s of [s1, s2]) expect((await call(t.app, 'GET', 'user', { token: s.token })).data.username).toBe(username);
      // The token is stored only as a hash.
      const rows = await t.app.ctx.db.selectFrom('sessions').select('token_hash').where('user_id', '=', s1.user.id).execute();
      expect(rows.map((r) => r.token_hash)).not.toContain(s1.token);
    });

    it('answers unknown accounts, wrong passwords and undecryptable ciphertexts identically (1024)', async () => {
      const { username } = await register();
      const answers = [
        await call(t.app, 'POST', 'user/login', { payload: { account: freshName(), password: await enc('Passw0rd-abc') } }),
        await call(t.app, 'POST', 'user/login', { payload: { account: username, password: await enc('Wr0ng-password') } }),
        await call(t.app, 'POST', 'user/login', { payload: { account: username, password: 'not base64 !!' } }),
        await call(t.app, 'POST', 'user/login', { payload: { account: username, password: randomBytes(128).toString('base64') } }),
        await call(t.app, 'POST', 'user/login', { payload: { account: username, password: randomBytes(100).toString('base64') } }),
      ];
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(a.message).toEqual({ code: 1024, message: '用户名或密码错误' });
        expect(a.data).toBeNull();
      }
    });

    it('answers 1005 naming the missing field', async () => {
      const noAccount = await call(t.app, 'POST', 'user/login', { payload: { password: await enc('Passw0rd-abc') } });
      expect(noAccount.message.code).toBe(1005);
      expect(noAccount.message.message).toContain('account');
      const noPassword = await call(t.app, 'POST', 'user/login', { payload: { account: 'someone' } });
      expect(noPassword.message.code).toBe(1005);
      expect(noPassword.message.message).toContain('password');
    });

    it('refuses a disabled account with 1027 only after the right password, and ends its sessions (10307)', async () => {
      const { user, password, token } = await registerAndLogin(t.app);
      const username = user.username;
      await t.app.ctx.db.updateTable('users').set({ status: 'disabled' }).where('username', '=', username).execute();
      // Changed behind the service's back (as an operator would): every process sees it within SESSION_CACHE_MS.
      t.clock.advance(SESSION_CACHE_MS);
      expect((await call(t.app, 'GET', 'user', { token })).message.code).toBe(10307);
      const right = await call(t.app, 'POST', 'user/login', { payload: { account: username, password: await enc(password) } });
      expect(right.message).toEqual({ code: 1027, message: '账号已被禁用，如有疑问请联系平台运营人员' });
      const wrong = await call(t.app, 'POST', 'user/login', { payload: { account: username, password: await enc('Wr0ng-password') } });
      expect(wrong.message).toEqual({ code: 1024, message: '用户名或密码错误' });
    });
  });

  describe('GET /user/logout', () => {
    it('revokes the token it is sent with (10307 afterwards) and leaves the other sessions alone', async () => {
      const { token, user, password } = await registerAndLogin(t.app);
      const other = await login(t.app, user.username, password);
      const res = await call(t.app, 'GET', 'user/logout', { token, query: { appClientId: 'suanli-console' } });
      expect(res.message).toEqual({ code: 0, message: '操作成功' });
      expect((await call(t.app, 'GET', 'user', { token })).message.code).toBe(10307);
      expect((await call(t.app, 'GET', 'user', { token: other.token })).data.id).toBe(user.id);
    });

    it('is public: answers success without a token or with an unknown one', async () => {
      expect((await call(t.app, 'GET', 'user/logout', { query: { appClientId: 'suanli-console' } })).message.code).toBe(0);
      expect((await call(t.app, 'GET', 'user/logout', { token: 'forged', query: { appClientId: 'x' } })).message.code).toBe(0);
    });

    it('answers 1005 naming appClientId when it is too long', async () => {
      const res = await call(t.app, 'GET', 'user/logout', { query: { appClientId: 'x'.repeat(65) } });
      expect(res.message.code).toBe(1005);
      expect(res.message.message).toContain('appClientId');
    });
  });

  describe('GET /user', () => {
    it("answers the caller's own info (masked, without a token) and never another user's", async () => {
      const a = await registerAndLogin(t.app);
      const b = await registerAndLogin(t.app);
      const meA = await call(t.app, 'GET', 'user', { token: a.token });
      const meB = await call(t.app, 'GET', 'user', { token: b.token });
      expect(meA.data).toMatchObject({ id: a.user.id, username: a.user.username, email: expect.stringMatching(/^.\*\*\*@test\.local$/) });
      expect(meA.data.token).toBeUndefined();
      expect(meB.data.id).toBe(b.user.id);
      // A query naming someone else is ignored: the caller comes from the session only.
      const sneaky = await call(t.app, 'GET', `/gateway/user/api/v1/user?id=${a.user.id}`, { token: b.token });
      expect(sneaky.data.id).toBe(b.user.id);
    });
  });

  describe('POST /user/password/update', () => {
    it('changes the password, keeps the current session and revokes every other one (10307)', async () => {
      const a = await registerAndLogin(t.app);
      const second = await login(t.app, a.user.username, a.password);
      const res = await call(t.app, 'POST', 'user/password/update', {
        token: a.token,
        payload: { oldPassword: await enc(a.password), newPassword: await enc('N3w-password') },
      });
      expect(res.message.code).toBe(0);
      expect((await call(t.app, 'GET', 'user', { token: a.token })).message.code).toBe(0);
      expect((await call(t.app, 'GET', 'user', { token: second.token })).message.code).toBe(10307);
      expect((await call(t.app, 'POST', 'user/login', { payload: { account: a.user.username, password: await enc(a.password) } })).message.code).toBe(1024);
      expect((await login(t.app, a.user.username, 'N3w-password')).user.id).toBe(a.user.id);
    });

    it('refuses a wrong old password (1023) and changes nothing', async () => {
      const a = await registerAndLogin(t.app);
      const res = await call(t.app, 'POST', 'user/password/update', {
        token: a.token,
        payload: { oldPassword: await enc('Wr0ng-password'), newPassword: await enc('N3w-password') },
      });
      expect(res.message).toEqual({ code: 1023, message: '原密码错误' });
      expect((await login(t.app, a.user.username, a.password)).user.id).toBe(a.user.id);
    });

    it('answers 1005 naming the field', async () => {
      const a = await registerAndLogin(t.app);
      const cases: [Record<string, unknown>, string][] = [
        [{ oldPassword: await enc(a.password), newPassword: await enc('weak') }, 'newPassword'],
        [{ oldPassword: await enc(a.password), newPassword: 'AAAA' }, 'newPassword'],
        [{ oldPassword: await enc(a.password) }, 'newPassword'],
        [{ newPassword: await enc('N3w-password') }, 'oldPassword'],
      ];
      for (const [payload, field] of cases) {
        const res = await call(t.app, 'POST', 'user/password/update', { token: a.token, payload });
        expect(res.message.code, field).toBe(1005);
        expect(res.message.message).toContain(field);
      }
      expect((await login(t.app, a.user.username, a.password)).user.id).toBe(a.user.id);
    });
  });

  describe('POST /user/password/reset', () => {
    it('resets with a code sent to the e-mail, revoking every session', async () => {
      const a = await registerAndLogin(t.app);
      const email = (await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', a.user.id).executeTakeFirstOrThrow()).email!;
      t.clock.advance(61_000); // the register code went to the same address moments ago
      expect((await requestCode(t.app, 'reset', email)).message.code).toBe(0);
      const code = await readOutboxCode(t.app, email, 'reset');
      const res = await call(t.app, 'POST', 'user/password/reset', { payload: { target: email, code, newPassword: await enc('Res3t-password') } });
      expect(res.message.code).toBe(0);
      expect((await call(t.app, 'GET', 'user', { token: a.token })).message.code).toBe(10307);
      expect((await login(t.app, a.user.username, 'Res3t-password')).user.id).toBe(a.user.id);
      // Single use.
      const again = await call(t.app, 'POST', 'user/password/reset', { payload: { target: email, code, newPassword: await enc('Res3t-password2') } });
      expect(again.message).toEqual({ code: 1026, message: '验证码已失效，请重新获取' });
    });

    it('answers a code request for an unknown target like a known one, but sends nothing', async () => {
      const ghost = freshEmail().toLowerCase();
      const res = await requestCode(t.app, 'reset', ghost);
      expect(res.message).toEqual({ code: 0, message: '操作成功' });
      await new Promise((r) => setTimeout(r, 100));
      expect(readOutbox(t.app).filter((l) => l.target === ghost)).toEqual([]);
      // Guessing a code for it gets the ordinary wrong-code answer.
      const guess = await call(t.app, 'POST', 'user/password/reset', { payload: { target: ghost, code: '123456', newPassword: await enc('Res3t-password') } });
      expect(guess.message.code).toBe(1026);
      // The same send limit applies, so the limit does not tell them apart either.
      expect((await requestCode(t.app, 'reset', ghost)).message.code).toBe(1020);
    });

    it('answers 1005 naming the field, without using up the code', async () => {
      const a = await registerAndLogin(t.app);
      const email = (await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', a.user.id).executeTakeFirstOrThrow()).email!;
      t.clock.advance(61_000);
      expect((await requestCode(t.app, 'reset', email)).message.code).toBe(0);
      const code = await readOutboxCode(t.app, email, 'reset');
      const cases: [Record<string, unknown>, string][] = [
        [{ target: 'nobody', code, newPassword: await enc('Res3t-password') }, 'target'],
        [{ target: email, code: 'abc', newPassword: await enc('Res3t-password') }, 'code'],
        [{ target: email, code, newPassword: await enc('weak') }, 'newPassword'],
        [{ target: email, code }, 'newPassword'],
      ];
      for (const [payload, field] of cases) {
        const res = await call(t.app, 'POST', 'user/password/reset', { payload });
        expect(res.message.code, field).toBe(1005);
        expect(res.message.message).toContain(field);
      }
      expect((await call(t.app, 'POST', 'user/password/reset', { payload: { target: email, code, newPassword: await enc('Res3t-password') } })).message.code).toBe(0);
    });
  });

  describe('POST /user/action/update-profile', () => {
    it("changes the caller's nickname only", async () => {
      const a = await registerAndLogin(t.app);
      const b = await registerAndLogin(t.app);
      const res = await call(t.app, 'POST', 'user/action/update-profile', { token: a.token, payload: { nickname: '  算力达人  ' } });
      expect(res.message.code).toBe(0);
      expect(res.data).toMatchObject({ id: a.user.id, nickname: '算力达人' });
      expect((await call(t.app, 'GET', 'user', { token: b.token })).data.nickname).toBe(b.user.nickname);
    });

    it('answers 1005 naming nickname', async () => {
      const a = await registerAndLogin(t.app);
      for (const nickname of ['', '   ', 'x'.repeat(33), 'a\u0007b']) {
        const res = await call(t.app, 'POST', 'user/action/update-profile', { token: a.token, payload: { nickname } });
        expect(res.message.code, JSON.stringify(nickname)).toBe(1005);
        expect(res.message.message).toContain('nickname');
      }
    });
  });

  describe('POST /user/list', () => {
    it('pages active users by username/nickname keyword and never returns phone or e-mail', async () => {
      const tag = randomBytes(3).toString('hex');
      const phones: string[] = [];
      for (let i = 0; i < 3; i++) {
        const phone = freshPhone();
        phones.push(phone);
        await register({ username: `${tag}_user${i}`, phone });
      }
      await register({ username: freshName('x'), nickname: `昵称${tag.toUpperCase()}` });
      const disabled = await register({ username: `${tag}_gone` });
      await t.app.ctx.db.updateTable('users').set({ status: 'disabled' }).where('username', '=', disabled.username).execute();
      const { token } = await registerAndLogin(t.app);

      const page1 = await call(t.app, 'POST', 'user/list', { token, payload: { keyword: tag, pageNum: 1, pageSize: 2 } });
      expect(page1.message.code).toBe(0);
      expect(page1.data.total).toBe(4);
      expect(page1.data.pageNum).toBe(1);
      expect(page1.data.list.map((u: any) => u.username)).toEqual([`${tag}_user0`, `${tag}_user1`]);
      const page2 = await call(t.app, 'POST', 'user/list', { token, payload: { keyword: tag, pageNum: 2, pageSize: 2 } });
      expect(page2.data.list.map((u: any) => u.nickname)).toEqual([`${tag}_user2`, `昵称${tag.toUpperCase()}`]);
      for (const u of [...page1.data.list, ...page2.data.list]) expect(Object.keys(u).sort()).toEqual(['headImage', 'id', 'nickname', 'username']);
      const raw = JSON.stringify([page1, page2]);
      for (const p of phones) {
        expect(raw).not.toContain(p);
        expect(raw).not.toContain(p.slice(-4) + '"');
      }
      expect(raw).not.toContain('@');
      expect(raw).not.toContain(disabled.username);
    });

    it('treats % and _ in the keyword literally, and defaults the paging', async () => {
      const { token } = await registerAndLogin(t.app);
      const res = await call(t.app, 'POST', 'user/list', { token, payload: { keyword: '%' } });
      expect(res.message.code).toBe(0);
      expect(res.data).toMatchObject({ list: [], total: 0, pageNum: 1, pageSize: 10 });
    });

    it('answers 1005 naming the field', async () => {
      const { token } = await registerAndLogin(t.app);
      const big = await call(t.app, 'POST', 'user/list', { token, payload: { pageNum: 1, pageSize: 101 } });
      expect(big.message.code).toBe(1005);
      expect(big.message.message).toContain('pageSize');
      const zero = await call(t.app, 'POST', 'user/list', { token, payload: { pageNum: 0, pageSize: 10 } });
      expect(zero.message.message).toContain('pageNum');
    });
  });

  describe('GET /agent/user/get', () => {
    it("lists only the caller's cluster accounts and creates one on first use of a center", async () => {
      const a = await registerAndLogin(t.app);
      const b = await registerAndLogin(t.app);
      expect((await call(t.app, 'GET', 'agent/user/get', { token: a.token })).data).toEqual([]);
      const ensured = await call(t.app, 'GET', 'agent/user/get', { token: a.token, query: { subCenterId: 'sz-a100' } });
      expect(ensured.message.code).toBe(0);
      expect(ensured.data).toEqual([
        expect.objectContaining({ subCenterId: 'sz-a100', account: expect.any(String), uid: expect.any(Number), homeDir: expect.any(String), status: 'active' }),
      ]);
      const again = await call(t.app, 'GET', 'agent/user/get', { token: a.token, query: { subCenterId: 'sz-a100' } });
      expect(again.data).toEqual(ensured.data);
      expect((await call(t.app, 'GET', 'agent/user/get', { token: a.token })).data).toEqual(ensured.data);

      expect((await call(t.app, 'GET', 'agent/user/get', { token: b.token })).data).toEqual([]);
      const bAccount = (await call(t.app, 'GET', 'agent/user/get', { token: b.token, query: { subCenterId: 'sz-a100' } })).data[0];
      expect(bAccount.account).not.toBe(ensured.data[0].account);
      expect(bAccount.uid).not.toBe(ensured.data[0].uid);
    });

    /** Issue 7's probe: the gateway's absolute disk path of the home was sent to the browser. */
    it('shows the home as the user sees it on the center (/home/<account>), never the gateway\'s disk path', async () => {
      const a = await registerAndLogin(t.app);
      const [acc] = (await call(t.app, 'GET', 'agent/user/get', { token: a.token, query: { subCenterId: 'gz-ascend' } })).data;
      expect(acc.homeDir).toBe(`/home/${acc.account}`);
      const listed = (await call(t.app, 'GET', 'agent/user/get', { token: a.token })).data;
      expect(listed.map((x: { homeDir: string }) => x.homeDir)).toEqual([`/home/${acc.account}`]);
      expect(JSON.stringify(listed)).not.toContain(t.dataDir);
      // The files are still where the file service keeps them.
      expect((await t.app.ctx.clusterAccounts.ensure(a.user.id, 'gz-ascend')).homeDir.startsWith(t.dataDir)).toBe(true);
    });

    it('answers 1205 for an unknown center and 1005 naming subCenterId for a malformed one', async () => {
      const a = await registerAndLogin(t.app);
      expect((await call(t.app, 'GET', 'agent/user/get', { token: a.token, query: { subCenterId: 'nope' } })).message.code).toBe(1205);
      const bad = await call(t.app, 'GET', 'agent/user/get', { token: a.token, query: { subCenterId: 'x'.repeat(65) } });
      expect(bad.message.code).toBe(1005);
      expect(bad.message.message).toContain('subCenterId');
    });
  });

  describe('every call that needs a session', () => {
    type Req = { method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown>; query?: Record<string, string> };
    const requests = (): Req[] => [
      { method: 'GET', url: 'user' },
      { method: 'POST', url: 'user/password/update', payload: { oldPassword: 'AAAA', newPassword: 'AAAA' } },
      { method: 'POST', url: 'user/action/update-phone', payload: { phone: freshPhone(), code: '123456' } },
      { method: 'POST', url: 'user/action/bind-email', payload: { email: freshEmail(), code: '123456' } },
      { method: 'POST', url: 'user/action/update-profile', payload: { nickname: 'n' } },
      { method: 'POST', url: 'user/action/upload-avatar', payload: {} },
      { method: 'GET', url: 'agent/user/get' },
      { method: 'POST', url: 'user/list', payload: { pageNum: 1, pageSize: 10 } },
      { method: 'POST', url: 'user/code', payload: { scene: 'updatePhone', target: freshPhone() } },
      { method: 'POST', url: 'user/code', payload: { scene: 'bindEmail', target: freshEmail() } },
    ];
    const send = (r: Req, token?: string) => call(t.app, r.method, r.url, { token, payload: r.payload, query: r.query });

    it('answers 10133 without a token or with an unknown one', async () => {
      for (const r of requests()) {
        expect((await send(r)).message, r.url).toEqual({ code: 10133, message: '未登录或登录已失效' });
        expect((await send(r, 'forged-token')).message.code, r.url).toBe(10133);
      }
    });

    it('answers 10307 after logout', async () => {
      const a = await registerAndLogin(t.app);
      await call(t.app, 'GET', 'user/logout', { token: a.token, query: { appClientId: 'suanli-console' } });
      for (const r of requests()) expect((await send(r, a.token)).message, r.url).toEqual({ code: 10307, message: '账号状态已变更，请重新登录' });
    });

    it('answers 10307 on other sessions after a password change', async () => {
      const a = await registerAndLogin(t.app);
      const other = await login(t.app, a.user.username, a.password);
      await call(t.app, 'POST', 'user/password/update', { token: a.token, payload: { oldPassword: await enc(a.password), newPassword: await enc('Chang3d-pass') } });
      for (const r of requests()) expect((await send(r, other.token)).message.code, r.url).toBe(10307);
    });

    it('answers 10157 once the session has been idle for more than 30 minutes', async () => {
      const a = await registerAndLogin(t.app);
      t.clock.advance(31 * 60_000);
      for (const r of requests()) expect((await send(r, a.token)).message, r.url).toEqual({ code: 10157, message: '登录已过期，请重新登录' });
    });
  });
});
