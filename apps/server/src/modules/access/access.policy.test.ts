import { describe, expect, it } from 'vitest';
import { allowed, owns, RULES, type Action } from './access.policy';

const alice = { userId: 'alice', roles: ['user'] as const };
const bob = { userId: 'bob', roles: ['user'] as const };
const op = { userId: 'op', roles: ['user', 'operator'] as const };

describe('access policy', () => {
  it('an asset: the owner reads and writes; a sharee, a member of a team it is shared with and everyone (public) only read; a stranger nothing', () => {
    const mine = { ownerId: 'alice' };
    expect([allowed(alice, 'asset.read', mine), allowed(alice, 'asset.write', mine)]).toEqual([true, true]);
    expect([allowed(bob, 'asset.read', mine), allowed(bob, 'asset.write', mine)]).toEqual([false, false]);
    expect([allowed(bob, 'asset.read', { ...mine, sharees: ['bob'] }), allowed(bob, 'asset.write', { ...mine, sharees: ['bob'] })]).toEqual([true, false]);
    expect([allowed(bob, 'asset.read', { ...mine, public: true }), allowed(bob, 'asset.write', { ...mine, public: true })]).toEqual([true, false]);
    // Operators review publications; they do not read private assets by their role.
    expect([allowed(op, 'asset.read', mine), allowed(op, 'asset.review')]).toEqual([false, true]);
    // Shared with a team bob is in (ADR 0018): he reads, any role, never writes; the team's others are not him.
    for (const role of ['member', 'admin', 'owner'] as const) {
      const viaTeam = { ...mine, team: { id: 't1', roles: new Map([['bob', role]]) } };
      expect([allowed(bob, 'asset.read', viaTeam), allowed(bob, 'asset.write', viaTeam)]).toEqual([true, false]);
    }
    expect(allowed(op, 'asset.read', { ...mine, team: { id: 't1', roles: new Map([['bob', 'member' as const]]) } })).toBe(false);
  });

  it('orders and work orders: the owner and operators read; only operators read all, confirm and resolve', () => {
    const order = { ownerId: 'alice' };
    expect([allowed(alice, 'order.read', order), allowed(bob, 'order.read', order), allowed(op, 'order.read', order)]).toEqual([true, false, true]);
    expect([allowed(alice, 'order.write', order), allowed(op, 'order.write', order)]).toEqual([true, false]);
    for (const a of ['order.readAll', 'order.confirm', 'workorder.readAll', 'workorder.resolve', 'accessLog.readAll', 'image.publish', 'user.readAll', 'user.manage', 'audit.read', 'center.manage'] as Action[]) {
      expect([allowed(alice, a), allowed(op, a)], a).toEqual([false, true]);
    }
    // An attachment: the work order's owner, its uploader (a sharee) and operators.
    const shot = { ownerId: 'alice', sharees: ['bob'] };
    expect([allowed(alice, 'workorder.attachment.read', shot), allowed(bob, 'workorder.attachment.read', shot), allowed(op, 'workorder.attachment.read', shot)]).toEqual([true, true, true]);
    expect(allowed({ userId: 'carol', roles: ['user'] }, 'workorder.attachment.read', shot)).toBe(false);
  });

  it('a task: only its owner reads it (detail, log, IDE) and changes it (stop, delete); operators only stop it (运营管理, with a reason)', () => {
    const task = { ownerId: 'alice' };
    expect([allowed(alice, 'task.read', task), allowed(alice, 'task.write', task)]).toEqual([true, true]);
    expect([allowed(bob, 'task.read', task), allowed(bob, 'task.write', task)]).toEqual([false, false]);
    expect([allowed(op, 'task.read', task), allowed(op, 'task.write', task)]).toEqual([false, false]);
    // The operators' stop is theirs alone: not the owner's (their stop is task.write), whoever owns the task.
    expect([allowed(alice, 'task.stopAny', task), allowed(bob, 'task.stopAny', task), allowed(op, 'task.stopAny', task), allowed(op, 'task.stopAny', { ownerId: 'op' })]).toEqual([false, false, true, true]);
  });

  it('compute power: a balance and a record (charge, grant, consume) are their owner\'s only; operators grant', () => {
    const mine = { ownerId: 'alice' };
    for (const a of ['compPower.read', 'record.read'] as Action[]) {
      expect([allowed(alice, a, mine), allowed(bob, a, mine), allowed(op, a, mine)], a).toEqual([true, false, false]);
    }
    expect([allowed(alice, 'compPower.grant'), allowed(op, 'compPower.grant')]).toEqual([false, true]);
  });

  it('a team: members read; admins and the owner manage; only the owner owns; platform operators nothing', () => {
    const carol = { userId: 'carol', roles: ['user'] as const };
    const dave = { userId: 'dave', roles: ['user'] as const };
    const team = { ownerId: 'alice', team: { id: 't1', roles: new Map([['alice', 'owner'], ['bob', 'admin'], ['carol', 'member']] as const) } };
    const who = [alice, bob, carol, dave, op];
    const row = (a: Action) => who.map((p) => allowed(p, a, team));
    expect(row('team.read')).toEqual([true, true, true, false, false]);
    expect(row('team.leave')).toEqual([true, true, true, false, false]);
    expect(row('team.manage')).toEqual([true, true, false, false, false]);
    expect(row('team.own')).toEqual([true, false, false, false, false]);
    // An invitation to dave: he answers; the team's owner and admins read (and withdraw) it; a member does not.
    const invitation = { ownerId: 'dave', team: team.team };
    expect(who.map((p) => allowed(p, 'team.invitation.read', invitation))).toEqual([true, true, false, true, false]);
    expect(who.map((p) => allowed(p, 'team.invitation.answer', invitation))).toEqual([false, false, false, true, false]);
  });

  it('an action with a resource condition is never granted without the resource', () => {
    for (const action of Object.keys(RULES) as Action[]) {
      const onlyResource = (RULES[action] as readonly string[]).every((c) => ['owner', 'sharee', 'public', 'teamMember', 'teamAdmin', 'teamOwner'].includes(c));
      if (onlyResource) expect(allowed(op, action), action).toBe(false);
    }
    expect([owns(alice, { ownerId: 'alice' }), owns(bob, { ownerId: 'alice' })]).toEqual([true, false]);
  });
});
