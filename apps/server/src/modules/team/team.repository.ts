import type { TeamRole } from '@suanli/contracts';
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/db';
import type { TeamInvitationsTable, TeamMembersTable, TeamsTable } from '../../db/schema';
import { isUniqueViolation } from '../../db/unique';

export type TeamRow = TeamsTable;
export type MemberRow = TeamMembersTable;
export type InvitationRow = TeamInvitationsTable;
/** A team with the caller's role in it (null: not a member) and how many members it has. */
export type TeamWithRole = TeamRow & { my_role: string | null; member_count: number };

/**
 * The only SQL of teams, members and invitations. A team read by id comes with the caller's membership (what
 * the access decision reads); every change of a role or an invitation's state is a conditional UPDATE on the
 * state the service saw, so of two concurrent requests only one changes it.
 */
export class TeamRepository {
  constructor(private readonly db: Db) {}

  private withRole(userId: string) {
    return this.db
      .selectFrom('teams')
      .leftJoin('team_members as me', (j) => j.onRef('me.team_id', '=', 'teams.id').on('me.user_id', '=', userId))
      .selectAll('teams')
      .select((eb) => [
        'me.role as my_role',
        eb.selectFrom('team_members as m').whereRef('m.team_id', '=', 'teams.id').select((e) => e.fn.countAll<number>().as('n')).as('member_count'),
      ]);
  }

  /** The team, whoever asks, with the caller's role in it (the service asks the access module). */
  async find(id: string, userId: string): Promise<TeamWithRole | undefined> {
    const r = await this.withRole(userId).where('teams.id', '=', id).executeTakeFirst();
    return r && { ...r, member_count: Number(r.member_count) };
  }

  /** The teams the user is a member of, oldest membership first. */
  async mine(userId: string): Promise<TeamWithRole[]> {
    const rows = await this.withRole(userId).where('me.user_id', '=', userId).orderBy('me.join_time').orderBy('teams.id').execute();
    return rows.map((r) => ({ ...r, member_count: Number(r.member_count) }));
  }

  /** Teams of this exact name (names are unique per owner only), for operators' 算力发放; and names by id. */
  named(name: string): Promise<TeamRow[]> {
    return this.db.selectFrom('teams').selectAll().where('name', '=', name).orderBy('id').execute();
  }

  async names(ids: readonly string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await this.db.selectFrom('teams').select(['id', 'name']).where('id', 'in', [...ids]).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /**
   * 运营管理 › 团队: every team with its member count, newest first; `keyword` matches the name (contains, ASCII
   * case ignored), `ownerIds` the owners (an exact username the service resolved).
   */
  async adminPage(f: { keyword?: string; ownerIds?: readonly string[] }, offset: number, limit: number) {
    let q = this.db.selectFrom('teams');
    if (f.keyword) {
      const pattern = `%${f.keyword.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      const owners = [...(f.ownerIds ?? [])];
      q = q.where((eb) => eb.or([sql<boolean>`lower(${eb.ref('teams.name')}) like ${pattern} escape '!'`, ...(owners.length ? [eb('teams.owner_id', 'in', owners)] : [])]));
    }
    const [rows, total] = await Promise.all([
      q
        .selectAll('teams')
        .select((eb) => eb.selectFrom('team_members as m').whereRef('m.team_id', '=', 'teams.id').select((e) => e.fn.countAll<number>().as('n')).as('member_count'))
        .orderBy('teams.create_time', 'desc')
        .orderBy('teams.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map((r) => ({ ...r, member_count: Number(r.member_count) })), total: Number(total.n) };
  }

  /** Creates the team with its owner as the first member; false when the owner already has a team of that name. */
  async create(team: TeamRow): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx.insertInto('teams').values(team).execute();
        await tx.insertInto('team_members').values({ team_id: team.id, user_id: team.owner_id, role: 'owner', join_time: team.create_time }).execute();
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** False when the owner already has another team of that name. */
  async update(id: string, name: string, description: string, now: number): Promise<boolean> {
    try {
      await this.db.updateTable('teams').set({ name, description, update_time: now }).where('id', '=', id).execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  members(teamId: string): Promise<MemberRow[]> {
    return this.db.selectFrom('team_members').selectAll().where('team_id', '=', teamId).orderBy('join_time').orderBy('user_id').execute();
  }

  // ---- team compute power (ADR 0017) ----

  /** Members' monthly limits (card-seconds) of a team, by user. */
  async limits(teamId: string): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('team_member_limits').select(['user_id', 'card_seconds']).where('team_id', '=', teamId).execute();
    return new Map(rows.map((r) => [r.user_id, Number(r.card_seconds)]));
  }

  /** Sets (or with null clears) a member's monthly limit. */
  async setLimit(teamId: string, userId: string, cardSeconds: number | null, setBy: string, now: number): Promise<void> {
    if (cardSeconds === null) {
      await this.db.deleteFrom('team_member_limits').where('team_id', '=', teamId).where('user_id', '=', userId).execute();
      return;
    }
    await this.db
      .insertInto('team_member_limits')
      .values({ team_id: teamId, user_id: userId, card_seconds: cardSeconds, set_by: setBy, update_time: now })
      .onConflict((oc) => oc.columns(['team_id', 'user_id']).doUpdateSet({ card_seconds: cardSeconds, set_by: setBy, update_time: now }))
      .execute();
  }

  /** The teams each of `userIds` is a member of (the balance limits count a team's compute power for its members). */
  teamsOf(userIds: string[]) {
    if (!userIds.length) return Promise.resolve([] as { team_id: string; user_id: string }[]);
    return this.db.selectFrom('team_members').select(['team_id', 'user_id']).where('user_id', 'in', userIds).execute();
  }

  /** For (team, user) pairs: the team's name, whether the user is a member, and their limit (metering's check). */
  async standing(pairs: { teamId: string; userId: string }[]) {
    const teamIds = [...new Set(pairs.map((x) => x.teamId))];
    if (!teamIds.length) return { names: new Map<string, string>(), members: new Set<string>(), limits: new Map<string, number>() };
    const [teams, members, limits] = await Promise.all([
      this.db.selectFrom('teams').select(['id', 'name']).where('id', 'in', teamIds).execute(),
      this.db.selectFrom('team_members').select(['team_id', 'user_id']).where('team_id', 'in', teamIds).execute(),
      this.db.selectFrom('team_member_limits').select(['team_id', 'user_id', 'card_seconds']).where('team_id', 'in', teamIds).execute(),
    ]);
    return {
      names: new Map(teams.map((t) => [t.id, t.name])),
      members: new Set(members.map((m) => `${m.team_id}|${m.user_id}`)),
      limits: new Map(limits.map((l) => [`${l.team_id}|${l.user_id}`, Number(l.card_seconds)])),
    };
  }

  member(teamId: string, userId: string): Promise<MemberRow | undefined> {
    return this.db.selectFrom('team_members').selectAll().where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** Changes a role only if it still is `from` (the owner's row never matches: ownership moves by transfer). */
  async setRole(teamId: string, userId: string, from: TeamRole, to: TeamRole): Promise<boolean> {
    const r = await this.db.updateTable('team_members').set({ role: to }).where('team_id', '=', teamId).where('user_id', '=', userId).where('role', '=', from).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Removes a membership only if its role still is one of `roles`. */
  async removeMember(teamId: string, userId: string, roles: readonly TeamRole[]): Promise<boolean> {
    // The member's monthly limit goes with the membership (ADR 0017): someone who rejoins starts without one.
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).where('role', 'in', roles).executeTakeFirst();
      if (Number(r.numDeletedRows) !== 1) return false;
      await tx.deleteFrom('team_member_limits').where('team_id', '=', teamId).where('user_id', '=', userId).execute();
      return true;
    });
  }

  /**
   * Ownership from `from` to `to` (a member or admin): the team's owner_id, the old owner's row to admin and
   * the new owner's row to owner, all or nothing. `moved`: the owner changed meanwhile or `to` left; `name`:
   * `to` already owns a team of this name.
   */
  async transfer(teamId: string, from: string, to: string, now: number): Promise<'ok' | 'moved' | 'name'> {
    try {
      return await this.db.transaction().execute(async (tx) => {
        const team = await tx.updateTable('teams').set({ owner_id: to, update_time: now }).where('id', '=', teamId).where('owner_id', '=', from).executeTakeFirst();
        if (Number(team.numUpdatedRows) !== 1) return 'moved' as const;
        const up = await tx.updateTable('team_members').set({ role: 'owner' }).where('team_id', '=', teamId).where('user_id', '=', to).where('role', 'in', ['admin', 'member']).executeTakeFirst();
        if (Number(up.numUpdatedRows) !== 1) throw new Rollback();
        await tx.updateTable('team_members').set({ role: 'admin' }).where('team_id', '=', teamId).where('user_id', '=', from).execute();
        return 'ok' as const;
      });
    } catch (err) {
      if (err instanceof Rollback) return 'moved';
      if (isUniqueViolation(err)) return 'name';
      throw err;
    }
  }

  /** The team, its members and its invitations, gone together. */
  /**
   * Deletes the team with its members, invitations and limits — only while `ownerId` still owns it (null: an
   * operator, whoever owns it). `inTx` runs in the same transaction once the team is gone (the audit entry).
   */
  async dissolve(teamId: string, ownerId: string | null, inTx?: (tx: Tx) => Promise<void>): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      let q = tx.deleteFrom('teams').where('id', '=', teamId);
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      const r = await q.executeTakeFirst();
      if (Number(r.numDeletedRows) !== 1) return false;
      await tx.deleteFrom('team_members').where('team_id', '=', teamId).execute();
      await tx.deleteFrom('team_invitations').where('team_id', '=', teamId).execute();
      await tx.deleteFrom('team_member_limits').where('team_id', '=', teamId).execute();
      await inTx?.(tx);
      return true;
    });
  }

  // ---- invitations --------------------------------------------------------------------------------------

  invitation(id: string): Promise<InvitationRow | undefined> {
    return this.db.selectFrom('team_invitations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The team's invitations still waiting (not yet past expiry), newest first. */
  pendingOf(teamId: string, now: number): Promise<InvitationRow[]> {
    return this.db.selectFrom('team_invitations').selectAll().where('team_id', '=', teamId).where('state', '=', 'pending').where('expire_time', '>', now).orderBy('create_time', 'desc').execute();
  }

  /** The user's invitations still waiting, newest first. */
  pendingFor(userId: string, now: number): Promise<InvitationRow[]> {
    return this.db.selectFrom('team_invitations').selectAll().where('invitee_id', '=', userId).where('state', '=', 'pending').where('expire_time', '>', now).orderBy('create_time', 'desc').execute();
  }

  /**
   * A new pending invitation; the invitee's earlier one to this team past its expiry is written `expired`
   * first. False when one is still pending (the unique index also holds under two concurrent invites).
   */
  async invite(row: InvitationRow): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx.updateTable('team_invitations').set({ state: 'expired' }).where('team_id', '=', row.team_id).where('invitee_id', '=', row.invitee_id).where('state', '=', 'pending').where('expire_time', '<=', row.create_time).execute();
        await tx.insertInto('team_invitations').values(row).execute();
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /**
   * Moves a pending, unexpired invitation to `state`; on `accepted` the membership is made in the same
   * transaction. Of two concurrent answers only the first matches `state = 'pending'`; the primary key of
   * team_members holds one membership in any case. False when it was no longer pending.
   */
  async answer(id: string, state: 'accepted' | 'declined' | 'cancelled', now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.updateTable('team_invitations').set({ state, answer_time: now }).where('id', '=', id).where('state', '=', 'pending').where('expire_time', '>', now).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      if (state === 'accepted') {
        const inv = await tx.selectFrom('team_invitations').select(['team_id', 'invitee_id']).where('id', '=', id).executeTakeFirstOrThrow();
        await tx.insertInto('team_members').values({ team_id: inv.team_id, user_id: inv.invitee_id, role: 'member', join_time: now }).onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing()).execute();
      }
      return true;
    });
  }
}

/** Thrown inside a transaction to roll it back; answered as `false`. */
class Rollback extends Error {}
