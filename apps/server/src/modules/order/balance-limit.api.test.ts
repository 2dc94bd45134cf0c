import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BASE, TEAM_BASE, type CompPowers, type Team, type TeamInvitation } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/**
 * The balance enforced by the scheduler (issue 25, item 3): when the limit of a cluster account flips, what is
 * recorded, and what the user is shown. The executor of the A100 center records the limits it is told instead
 * of setting them on a Slurm cluster — what `limitAccount` does on a real one (holds a job submitted over SSH,
 * lets it start once lifted after a grant through the API) is `order/balance-limit.slurm.int.test.ts`'s, on the
 * harness. The Ascend center keeps the local executor's answer: it cannot hold anything (no outside route).
 */
describe.each(engines)('balance limits (%s)', (engine) => {
  let t: TestApp;
  let op: User;
  let seq = 0;
  type User = { id: string; username: string; token: string; account: string };
  /** What the A100 center's scheduler was told, in order; `failing` makes it unreachable. */
  let told: [string, boolean][] = [];
  let failing = false;

  const call = async (u: User, method: 'GET' | 'POST', url: string, payload?: object) => body(await t.app.inject({ method, url, headers: { token: u.token }, payload }));
  const user = async (tag: string): Promise<User> => {
    const username = `bl_${tag}_${seq++}_${randomBytes(2).toString('hex')}`;
    const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
    const token = (await t.app.ctx.sessions.create(created!.id)).token;
    const acc = await t.app.ctx.clusterAccounts.ensure(created!.id, 'sz-a100');
    await t.app.ctx.clusterAccounts.ensure(created!.id, 'gz-ascend');
    return { id: created!.id, username, token, account: acc.account };
  };
  const held = async (u: User) => ((await call(u, 'GET', `${ORDER_BASE}/comp-powers/${u.id}`)).data as CompPowers).held;
  const state = async (account: string) =>
    (await t.app.ctx.db.selectFrom('balance_limits').select('limited').where('sub_center_id', '=', 'sz-a100').where('account', '=', account).executeTakeFirst())?.limited;
  const grant = (to: object, cardTypeId = 'a100-80g', validDays = 1) =>
    call(op, 'POST', `${ORDER_BASE}/comp-powers/grant`, { subCenterId: 'sz-a100', cardTypeId, cardHours: 1, validDays, reason: '测试', ...to });
  const mine = (u: User) => told.filter(([a]) => a === u.account);

  beforeAll(async () => {
    // No welcome grant; a metering period long enough that no pass runs on its own until the clock moves.
    t = await createTestApp(engine, { metering: { periodMs: 600_000 } });
    const executor = t.app.tasks.executors.get('sz-a100')!;
    executor.limitAccount = async (account, open) => {
      if (failing) throw new Error('slurmrestd: connect ECONNREFUSED');
      told.push([account, open]);
      return true;
    };
    op = await user('op');
    await t.app.ctx.access.grant(op.id, 'operator');
    op.token = (await t.app.ctx.sessions.create(op.id)).token;
  });
  afterAll(() => t.close());

  it('a user without compute power is held on the center after the leader\'s pass, says so in Chinese, and a grant lifts it at once', async () => {
    const u = await user('empty');
    expect(await held(u)).toEqual([]);
    await t.app.metering.pass();
    // The first pass of this leader writes every account of the center: held, as nobody has power there.
    expect(mine(u)).toEqual([[u.account, false]]);
    expect(await state(u.account)).toBe(1);
    expect(await held(u)).toEqual([{ subCenterId: 'sz-a100', subCenterName: '深圳算力分中心', account: u.account }]);
    // Nothing asked of the Ascend center, whose local executor has no outside route to hold.
    const a100 = new Set((await t.app.ctx.clusterAccounts.allOn('sz-a100')).map((a) => a.account));
    expect(told.filter(([a]) => !a100.has(a))).toEqual([]);

    // Later passes leave the scheduler alone while nothing changed (no write per pass per account).
    const before = told.length;
    await t.app.metering.pass();
    expect(told.length).toBe(before);

    // An operator's grant: lifted in the grant's own request, before any pass.
    const pushed: string[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => void (userId === u.id && pushed.push(e.businessType)));
    expect((await grant({ username: u.username })).message.code).toBe(0);
    off();
    expect(mine(u)).toEqual([
      [u.account, false],
      [u.account, true],
    ]);
    expect(await state(u.account)).toBe(0);
    expect(await held(u)).toEqual([]);
    expect(pushed).toContain('comp-power.changed');

    // The granted day passes: the bucket expires, and the next pass holds the account again.
    t.clock.advance(25 * 3600_000);
    await t.app.metering.pass('sz-a100');
    expect(mine(u).at(-1)).toEqual([u.account, false]);
    expect(await state(u.account)).toBe(1);
    // (a day later the operator signs in again)
    op.token = (await t.app.ctx.sessions.create(op.id)).token;
  });

  it('power for a CPU-only card type does not open the account; a paid order does, at its credit', async () => {
    const u = await user('cpu');
    await t.app.metering.pass('sz-a100');
    expect(await state(u.account)).toBe(1);
    expect((await grant({ username: u.username }, 'cpu-std')).message.code).toBe(0);
    expect(await state(u.account)).toBe(1);
    expect(mine(u)).toEqual([[u.account, false]]);

    const pre = await call(u, 'POST', `${ORDER_BASE}/orders/pre`, { productId: 'sz-a100-10h', quantity: 1 });
    expect(pre.message.code, pre.message.message).toBe(0);
    expect(await state(u.account)).toBe(1);
    expect((await call(op, 'POST', `${ORDER_BASE}/orders/${pre.data.id}/confirm`)).message.code).toBe(0);
    expect(mine(u).at(-1)).toEqual([u.account, true]);
    expect(await state(u.account)).toBe(0);
  });

  it('a member of a team with power stays open (team-paid tasks run as the member\'s own account)', async () => {
    const owner = await user('owner');
    const member = await user('member');
    const created = (await call(owner, 'POST', `${TEAM_BASE}/teams`, { name: `限额组${seq}` })).data as Team;
    const inv = (await call(owner, 'POST', `${TEAM_BASE}/teams/${created.id}/invitations`, { username: member.username })).data as TeamInvitation;
    expect((await call(member, 'POST', `${TEAM_BASE}/invitations/${inv.id}/accept`)).message.code).toBe(0);
    await t.app.metering.pass('sz-a100');
    expect(await state(member.account)).toBe(1);
    expect(await state(owner.account)).toBe(1);
    // A grant to the team: every member is credited, so both accounts open at once.
    expect((await grant({ teamName: created.name })).message.code).toBe(0);
    expect(await state(member.account)).toBe(0);
    expect(await state(owner.account)).toBe(0);
    expect(await held(member)).toEqual([]);
  });

  it('an unreachable scheduler keeps the recorded state and is told on the next pass; a new leader writes every limit again', async () => {
    const u = await user('retry');
    failing = true;
    await t.app.metering.pass('sz-a100');
    // Not told, so not recorded: the console does not claim a hold Slurm does not have.
    expect(await state(u.account)).toBeUndefined();
    expect(await held(u)).toEqual([]);
    failing = false;
    await t.app.metering.pass('sz-a100');
    expect(mine(u)).toEqual([[u.account, false]]);
    expect(await state(u.account)).toBe(1);
    // A grant while the scheduler is unreachable: the credit stands, the account stays held until a pass.
    failing = true;
    expect((await grant({ username: u.username })).message.code).toBe(0);
    expect(await state(u.account)).toBe(1);
    failing = false;
    await t.app.metering.pass('sz-a100');
    expect(mine(u).at(-1)).toEqual([u.account, true]);
    expect(await state(u.account)).toBe(0);

    // Another replica taking the center over (or this one after a restart): its first pass re-asserts all.
    const accounts = await t.app.ctx.clusterAccounts.allOn('sz-a100');
    told = [];
    await t.app.order.runMetering(t.app.tasks.meterSource).pass('sz-a100');
    expect(told.map(([a]) => a).sort()).toEqual(accounts.map((a) => a.account).sort());
    expect(told.find(([a]) => a === u.account)).toEqual([u.account, true]);
  });
});
