import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_BASE, ORDER_BASE, USER_BASE } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { SESSION_CACHE_MS } from '../auth/session.service';

describe.each(engines)('access: roles on the principal, route-level role (%s)', (engine) => {
  let t: TestApp;
  let seq = 0;

  const account = async () => {
    const created = await t.app.users.createAccount({ username: `acc_${seq++}_${Date.now() % 100000}`, password: 'Passw0rd-test', nickname: 'acc' });
    return { id: created!.id, token: (await t.app.ctx.sessions.create(created!.id)).token };
  };
  const me = async (token: string) => body(await t.app.inject({ method: 'GET', url: `${USER_BASE}/user`, headers: { token } }));
  const confirm = async (token: string, id: string) => body(await t.app.inject({ method: 'POST', url: `${ORDER_BASE}/orders/${id}/confirm`, headers: { token } }));

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('a route that requires operator answers 1020 to anyone else before validation and the handler', async () => {
    const u = await account();
    const review = async (payload: object) =>
      body(await t.app.inject({ method: 'POST', url: `${DATASET_BASE}/datasets/no-such-asset/publish/review`, headers: { token: u.token }, payload }));
    // A body that fails the schema: a user learns only that they may not, not what the route takes.
    expect(await review({ approve: 'yes' })).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
    expect(await confirm(u.token, 'no-such-order')).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
    await t.app.ctx.access.grant(u.id, 'operator');
    // The same calls as an operator: validation names the field; the service finds no such order.
    expect((await review({ approve: 'yes' })).message.code).toBe(1005);
    expect((await confirm(u.token, 'no-such-order')).message.code).toBe(1205);
  });

  it('a granted or revoked role applies from the next request of the same session', async () => {
    const u = await account();
    expect((await me(u.token)).data.roles).toEqual(['user']);
    await t.app.ctx.access.grant(u.id, 'operator');
    expect((await me(u.token)).data.roles).toEqual(['user', 'operator']);
    await t.app.ctx.access.revoke(u.id, 'operator');
    expect((await me(u.token)).data.roles).toEqual(['user']);
    expect((await confirm(u.token, 'x')).message.code).toBe(1020);
  });

  it('roles are read with the session verification, not per check: a row written behind the access module shows after the cache time', async () => {
    const u = await account();
    expect((await me(u.token)).data.roles).toEqual(['user']);
    // What another gateway process granting the role looks like to this one.
    await t.app.ctx.db.insertInto('user_roles').values({ user_id: u.id, role: 'operator', create_time: t.clock.now }).execute();
    expect((await me(u.token)).data.roles).toEqual(['user']);
    expect((await confirm(u.token, 'x')).message.code).toBe(1020);
    t.clock.advance(SESSION_CACHE_MS + 1);
    try {
      expect((await me(u.token)).data.roles).toEqual(['user', 'operator']);
      expect((await confirm(u.token, 'x')).message.code).toBe(1205);
    } finally {
      t.clock.advance(-(SESSION_CACHE_MS + 1));
    }
  });
});
