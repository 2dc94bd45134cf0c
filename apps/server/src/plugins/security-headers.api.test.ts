import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, createTestApp, engines, type TestApp } from '../../test/harness';
import { registerAndLogin, USER_API } from '../../test/users';
import { encryptPassword } from '../../test/users';

/** Issue 7's probe: caching of user data, HSTS over plain HTTP, the 415 text. */
describe.each(engines)('answer headers and transport errors (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('sends Cache-Control: no-store on JSON answers carrying user data (login, GET /user, errors alike)', async () => {
    const { token, password, user } = await registerAndLogin(t.app);
    const login = await t.app.inject({
      method: 'POST',
      url: `${USER_API}/user/login`,
      payload: { account: user.username, password: await encryptPassword(t.app, password) },
    });
    expect(body(login).data.token).toBeTruthy();
    expect(login.headers['cache-control']).toBe('no-store');
    const me = await t.app.inject({ method: 'GET', url: `${USER_API}/user`, headers: { token } });
    expect(body(me).data.id).toBe(user.id);
    expect(me.headers['cache-control']).toBe('no-store');
    const denied = await t.app.inject({ method: 'GET', url: `${USER_API}/user` });
    expect(body(denied).message.code).toBe(10133);
    expect(denied.headers['cache-control']).toBe('no-store');
  });

  it('sends HSTS only when the request came over HTTPS', async () => {
    const url = `${USER_API}/user/rsa-key`;
    expect((await t.app.inject({ method: 'GET', url })).headers['strict-transport-security']).toBeUndefined();
    // Not a trusted proxy: its X-Forwarded-Proto is ignored.
    const forged = await t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' } });
    expect(forged.headers['strict-transport-security']).toBeUndefined();
  });

  it('answers an unsupported content type with HTTP 415 and its own Chinese text', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${USER_API}/user/login`, headers: { 'content-type': 'text/xml' }, payload: '<a/>' });
    expect(res.statusCode).toBe(415);
    expect(body(res).message).toEqual({ code: 1005, message: '不支持的请求内容类型' });
  });
});

describe('HSTS behind a trusted proxy', () => {
  it('is sent when the trusted proxy says the request came over HTTPS', async () => {
    const t = await createTestApp('sqlite', { trustProxy: true });
    try {
      const url = `${USER_API}/user/rsa-key`;
      const https = await t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' } });
      expect(https.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      const http = await t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'http' } });
      expect(http.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
