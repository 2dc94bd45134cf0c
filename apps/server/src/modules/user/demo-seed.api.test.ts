import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { login } from '../../../test/users';
import { DEMO_ACCOUNT, DEMO_GRANT, seedDemo } from '../../seed';

describe.each(engines)('demo seed (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('creates the demo account once, prints the console URL and credentials, and signs in', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await seedDemo(t.app);
      await seedDemo(t.app);
      const printed = log.mock.calls.map((c) => c.join(' ')).join('\n');
      expect(printed).toContain(`${t.config.publicUrl}/console`);
      expect(printed).toContain('demo');
      expect(printed).toContain('Demo@123456');
    } finally {
      log.mockRestore();
    }
    const rows = await t.app.ctx.db.selectFrom('users').selectAll().where('username', '=', 'demo').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ nickname: '演示用户', email: 'demo@suanli.local', status: 'active' });
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
    const { user } = await login(t.app, DEMO_ACCOUNT.username, DEMO_ACCOUNT.password);
    expect(user).toMatchObject({ username: 'demo', nickname: '演示用户', email: 'd***@suanli.local' });
    expect((await login(t.app, 'demo@suanli.local', DEMO_ACCOUNT.password)).user.id).toBe(user.id);
    // Its grant (ADR 0015), given once however often the seed runs: one bucket per card type of every center.
    const cardTypes = t.app.ctx.centers.flatMap((c) => c.cardTypes.map((ct) => `${c.id}/${ct.id}`));
    const grants = await t.app.ctx.db.selectFrom('charge_records').selectAll().where('owner_id', '=', user.id).where('kind', '=', 'grant').where('reason', '=', '演示账号赠送').execute();
    expect(grants.map((g) => `${g.sub_center_id}/${g.card_type_id}`).sort()).toEqual(cardTypes.sort());
    expect(grants.every((g) => Number(g.card_seconds) === DEMO_GRANT.cardHours * 3600)).toBe(true);
  });
});
