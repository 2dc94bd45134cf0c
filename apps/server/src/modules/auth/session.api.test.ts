import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, login, registerAndLogin } from '../../../test/users';
import { SESSION_CACHE_MS } from './session.service';

// Verified sessions are reused for SESSION_CACHE_MS (ADR 0003). These tests pin down what that may and may
// not change: revocations through the service are immediate in the process that makes them, any other
// change is seen within SESSION_CACHE_MS, and the sliding idle timeout is still written.
describe.each(engines)('session verification cache (%s)', (engine) => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp(engine);
    // A second gateway process on the same database.
    b = await createTestApp(engine, { dataDir: a.dataDir, databaseUrl: a.config.databaseUrl });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const codeOf = async (t: TestApp, token: string) => (await call(t.app, 'GET', 'user', { token })).message.code;

  it('refuses a token at once after logout in the same process, even right after it was accepted', async () => {
    const { token } = await registerAndLogin(a.app);
    expect(await codeOf(a, token)).toBe(0);
    expect(await codeOf(a, token)).toBe(0);
    await call(a.app, 'GET', 'user/logout', { token, query: { appClientId: 'suanli-console' } });
    expect(await codeOf(a, token)).toBe(10307);
  });

  it('refuses the other sessions at once after a password change in the same process', async () => {
    const { user, password, token } = await registerAndLogin(a.app);
    const other = await login(a.app, user.username, password);
    expect(await codeOf(a, other.token)).toBe(0);
    await a.app.ctx.sessions.revokeAllOfUser(user.id, 'password_changed', undefined);
    expect(await codeOf(a, other.token)).toBe(10307);
    expect(await codeOf(a, token)).toBe(10307);
  });

  it('another process sees a logout within SESSION_CACHE_MS', async () => {
    const { token } = await registerAndLogin(a.app);
    expect(await codeOf(b, token)).toBe(0);
    await call(a.app, 'GET', 'user/logout', { token, query: { appClientId: 'suanli-console' } });
    b.clock.advance(SESSION_CACHE_MS);
    expect(await codeOf(b, token)).toBe(10307);
  });

  it('a token never verified by a process is checked against the database there', async () => {
    const { token } = await registerAndLogin(a.app);
    await call(a.app, 'GET', 'user/logout', { token, query: { appClientId: 'suanli-console' } });
    expect(await codeOf(b, token)).toBe(10307);
  });

  it('keeps the idle timeout sliding: last_seen is still written once a minute of use', async () => {
    const { user, token } = await registerAndLogin(a.app);
    const lastSeen = async () =>
      (await a.app.ctx.db.selectFrom('sessions').select('last_seen').where('user_id', '=', user.id).executeTakeFirstOrThrow()).last_seen;
    const first = await lastSeen();
    // 29 minutes of activity, a request every 50 s: never idle for 30 minutes, so never expired.
    for (let i = 0; i < 35; i++) {
      a.clock.advance(50_000);
      expect(await codeOf(a, token)).toBe(0);
    }
    expect(await lastSeen()).toBeGreaterThan(first + 28 * 60_000);
    // Then 30 minutes of silence: expired, cache or not.
    a.clock.advance(30 * 60_000 + 1);
    expect(await codeOf(a, token)).toBe(10157);
  });
});
