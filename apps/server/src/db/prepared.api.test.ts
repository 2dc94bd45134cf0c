import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../test/harness';
import { prepare } from './prepared';

describe.each(engines)('prepared queries (%s)', (engine) => {
  let t: TestApp;
  const base = 1_700_000_000_000;
  beforeAll(async () => {
    t = await createTestApp(engine);
    await t.app.ctx.db
      .insertInto('messages')
      .values(
        [1, 2, 3, 4].map((i) => ({
          id: `m${i}`,
          user_id: i <= 3 ? 'alice' : 'bob',
          type: 'system',
          title: `t${i}`,
          content: '',
          business_type: null,
          business_id: null,
          viewed: i === 2 ? 1 : 0,
          create_time: base + i,
        })),
      )
      .execute();
  });
  afterAll(() => t.close());

  it('binds each call’s values to the placeholders and keeps the constants the query was built with', async () => {
    const count = prepare(t.app.ctx.db, (db, a: { userId: string; since: number }) =>
      db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', a.userId)
        .where('viewed', '=', 0)
        .where('create_time', '>=', a.since),
    );
    const n = async (userId: string, since: number) => Number((await count({ userId, since }))[0].n);
    expect(await n('alice', 0)).toBe(2);
    expect(await n('bob', 0)).toBe(1);
    expect(await n('alice', base + 3)).toBe(1);
    expect(await n('nobody', 0)).toBe(0);
  });

  it('never sees another request’s uncommitted writes, and sees them once committed', async () => {
    const count = prepare(t.app.ctx.db, (db, a: { userId: string }) =>
      db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', a.userId),
    );
    const n = async () => Number((await count({ userId: 'carol' }))[0].n);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const didInsert = new Promise<void>((r) => (inserted = r));
    const trx = t.app.ctx.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('messages')
        .values({ id: 'c1', user_id: 'carol', type: 'system', title: 't', content: '', business_type: null, business_id: null, viewed: 0, create_time: base })
        .execute();
      inserted();
      await held;
    });
    await didInsert;
    expect(await n()).toBe(0);
    release();
    await trx;
    expect(await n()).toBe(1);
  });
});
