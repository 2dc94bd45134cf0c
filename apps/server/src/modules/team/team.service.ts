import {
  ErrorCode,
  type AdminTeamPage,
  type AdminTeamPageQuery,
  teamPayer,
  WS_TEAM_CHANGED,
  type Team,
  type TeamCreate,
  type TeamDetail,
  type TeamMember,
  type TeamRole,
  type TeamArea,
  type TeamUpdate,
} from '@suanli/contracts';
import type { Notify } from '../../context';
import { AppError, invalid } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { AccessService } from '../access/access.service';
import type { Caller, Principal } from '../access/principal';
import type { UserDirectory } from '../user/user-directory';
import type { Tx } from '../../db/db';
import type { AuditTrail } from '../audit/audit.service';
import { toInvitation } from './invitation.service';
import type { TeamRepository, TeamWithRole } from './team.repository';
import { resourceOf } from './team-resource';

const TEAM = '团队';

/** A team as the payer of a task or an order (ADR 0017). */
export interface TeamPayer {
  /** `team:<id>`: the owner key of the team's buckets and records. */
  payer: string;
  teamId: string;
  name: string;
  /** The caller's monthly limit in card-seconds; null: none. */
  limit: number | null;
}

export interface TeamStanding {
  teamName: string;
  /** The team is gone (dissolved): its tasks are stopped with a reason that says so (ADR 0017). */
  dissolved: boolean;
  member: boolean;
  limit: number | null;
}

/** What the order module asks of teams (built before it in app.ts). */
export type TeamPayers = Pick<TeamService, 'payer' | 'usageMembers' | 'standing' | 'memberIds' | 'named' | 'names' | 'payersOf'>;
/** What the asset module asks of teams (datasets and models shared with a team, ADR 0018). */
export type AssetTeams = Pick<TeamService, 'rolesOf' | 'memberTeam' | 'memberIds' | 'names'>;

/**
 * 团队 (issue 21): teams and their members' roles (invitations: invitation.service.ts, on this service's
 * `readable`, `team` and `changed`). Every decision goes through the access module on a resource that carries
 * the caller's role in the team (`team.read` for members; a non-member gets 1205 as for a missing team,
 * `team.manage` for owners and admins, `team.own` for the owner). Every member gets `team.changed` after each
 * change.
 */
export class TeamService {
  constructor(
    private readonly repo: TeamRepository,
    private readonly access: Pick<AccessService, 'require' | 'found' | 'can'>,
    private readonly users: Pick<UserDirectory, 'names' | 'named'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    /**
     * The members of a team changed (created, joined, left, removed, dissolved): the team's storage area on
     * every center follows (ADR 0018), and whatever else follows membership. Awaited, so the caller's answer
     * means the disk has it; failures are the listener's to log (the database is the truth).
     */
    private readonly membership: (teamId: string) => Promise<void> = async () => {},
    /** Where the team's folder is on each center (no I/O). */
    private readonly areas: (teamId: string) => TeamArea[] = () => [],
    /** Operators' dissolve writes its audit entry through this (in the dissolve's transaction). */
    private readonly audit?: AuditTrail,
  ) {}

  async list(p: Principal): Promise<Team[]> {
    const rows = await this.repo.mine(p.userId);
    const names = await this.users.names(rows.map((r) => r.owner_id));
    return rows.map((r) => toTeam(r, names.get(r.owner_id)?.username ?? ''));
  }

  async create(p: Principal, body: TeamCreate): Promise<Team> {
    const name = cleanName(body.name);
    const now = this.clock();
    const id = newId(now);
    if (!(await this.repo.create({ id, name, description: (body.description ?? '').trim(), owner_id: p.userId, create_time: now, update_time: now }))) {
      throw new AppError(ErrorCode.TEAM_NAME_TAKEN);
    }
    await this.membership(id);
    return this.team(p, id);
  }

  async detail(p: Principal, id: string): Promise<TeamDetail> {
    const team = await this.readable(p, id);
    const [members, limits] = await Promise.all([this.repo.members(id), this.repo.limits(id)]);
    const manages = this.access.can(p, 'team.manage', resourceOf(team, p));
    const invitations = manages ? await this.repo.pendingOf(id, this.clock()) : [];
    const names = await this.users.names([team.owner_id, ...members.map((m) => m.user_id), ...invitations.flatMap((i) => [i.invitee_id, i.inviter_id])]);
    return {
      ...toTeam(team, names.get(team.owner_id)?.username ?? ''),
      members: members.map((m) => ({ userId: m.user_id, username: names.get(m.user_id)?.username ?? '', nickname: names.get(m.user_id)?.nickname ?? '', role: m.role as TeamRole, joinTime: Number(m.join_time), limitCardHours: limitHours(limits.get(m.user_id)) })),
      invitations: invitations.map((i) => toInvitation(i, team.name, names, this.clock())),
      areas: this.areas(id),
    };
  }

  async update(p: Principal, id: string, body: TeamUpdate): Promise<Team> {
    const team = await this.readable(p, id);
    this.access.require(p, 'team.manage', resourceOf(team, p));
    if (!(await this.repo.update(id, cleanName(body.name), (body.description ?? '').trim(), this.clock()))) throw new AppError(ErrorCode.TEAM_NAME_TAKEN);
    await this.changed(id);
    return this.team(p, id);
  }

  /** The owner only; admin ↔ member (ownership moves by transfer). */
  async setRole(p: Principal, id: string, userId: string, role: 'admin' | 'member'): Promise<TeamMember> {
    const team = await this.readable(p, id);
    this.access.require(p, 'team.own', resourceOf(team, p));
    const m = await this.repo.member(id, userId);
    if (!m) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    if (m.role === 'owner') throw invalid('userId', '所有者的角色只能通过转让团队改变');
    if (m.role !== role && !(await this.repo.setRole(id, userId, m.role as TeamRole, role))) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    await this.changed(id);
    const names = await this.users.names([userId]);
    return { userId, username: names.get(userId)?.username ?? '', nickname: names.get(userId)?.nickname ?? '', role, joinTime: Number(m.join_time) };
  }

  /** Admins remove members; the owner also removes admins; nobody removes the owner (1020). */
  async removeMember(p: Principal, id: string, userId: string): Promise<null> {
    const team = await this.readable(p, id);
    const res = resourceOf(team, p);
    this.access.require(p, 'team.manage', res);
    const m = await this.repo.member(id, userId);
    if (!m) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    if (userId === p.userId) throw invalid('userId', '不能移除自己，请使用退出团队');
    const role = m.role as TeamRole;
    if (role === 'owner') throw new AppError(ErrorCode.NO_PERMISSION);
    if (role === 'admin') this.access.require(p, 'team.own', res);
    if (!(await this.repo.removeMember(id, userId, [role]))) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    await this.membership(id);
    await this.notify(userId, { type: 'team', title: `您已被移出团队「${team.name}」`, content: `您已不再是团队「${team.name}」的成员。`, businessType: 'team', businessId: id });
    await this.changed(id, [userId]);
    return null;
  }

  async leave(p: Principal, id: string): Promise<null> {
    const team = await this.readable(p, id);
    this.access.require(p, 'team.leave', resourceOf(team, p));
    if (team.my_role === 'owner') throw new AppError(ErrorCode.TEAM_OWNER_MUST_TRANSFER);
    if (!(await this.repo.removeMember(id, p.userId, ['admin', 'member']))) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    await this.membership(id);
    await this.changed(id, [p.userId]);
    return null;
  }

  async transfer(p: Principal, id: string, userId: string): Promise<Team> {
    const team = await this.readable(p, id);
    this.access.require(p, 'team.own', resourceOf(team, p));
    if (userId === p.userId) throw invalid('userId', '不能转让给自己');
    if (!(await this.repo.member(id, userId))) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    const moved = await this.repo.transfer(id, p.userId, userId, this.clock());
    if (moved === 'name') throw new AppError(ErrorCode.TEAM_NAME_TAKEN, '对方已有同名团队，请先修改团队名称再转让');
    if (moved === 'moved') throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    await this.notify(userId, { type: 'team', title: `您已成为团队「${team.name}」的所有者`, content: `团队「${team.name}」已转让给您，原所有者成为管理员。`, businessType: 'team', businessId: id });
    await this.changed(id);
    return this.team(p, id);
  }

  /** 运营管理 › 团队: every team (operators only); the keyword is a name fragment or an owner's exact username. */
  async adminPage(p: Principal, q: AdminTeamPageQuery): Promise<AdminTeamPage> {
    this.access.require(p, 'team.readAll');
    const keyword = q.keyword?.trim() || undefined;
    const ownerIds = keyword ? (await this.users.named([keyword])).map((u) => u.id) : [];
    const { rows, total } = await this.repo.adminPage({ keyword, ownerIds }, (q.pageNum - 1) * q.pageSize, q.pageSize);
    const owners = await this.users.names(rows.map((r) => r.owner_id));
    const list = rows.map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      ownerId: r.owner_id,
      ownerUsername: owners.get(r.owner_id)?.username ?? '',
      ownerNickname: owners.get(r.owner_id)?.nickname ?? '',
      memberCount: r.member_count,
      createTime: Number(r.create_time),
    }));
    return { list, total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /**
   * The owner only. Its members lose the team folder and its shares at once; its compute power stays on the
   * books but nobody can use it, and team-paid tasks still running are stopped at the next metering pass
   * (ADR 0017 "Dissolving a team").
   */
  async dissolve(p: Principal, id: string): Promise<null> {
    const team = await this.readable(p, id);
    this.access.require(p, 'team.own', resourceOf(team, p));
    return this.dissolveTeam(team, p.userId, `所有者已解散团队「${team.name}」。`);
  }

  /**
   * 运营管理 › 团队 › 解散 (operators, `team.dissolveAny`): the same dissolve as the owner's, whoever owns the
   * team, with the audit entry in its transaction; every member (the owner too) is told, with the reason.
   */
  async dissolveAny(p: Principal, id: string, reason: string, ip: string | null): Promise<null> {
    this.access.require(p, 'team.dissolveAny');
    const why = reason.trim();
    if (!why) throw invalid('reason', '不能为空');
    if (!this.audit) throw new AppError(ErrorCode.INTERNAL_FAILED);
    const audit = this.audit;
    const team = await this.repo.find(id, p.userId);
    if (!team) throw new AppError(ErrorCode.NOT_FOUND, `${TEAM}不存在`);
    const actor = await audit.operator(p, ip);
    const owner = (await this.users.names([team.owner_id])).get(team.owner_id)?.username ?? '';
    const record = (tx: Tx) =>
      audit.record(tx, {
        actor,
        action: 'team.dissolve',
        target: { type: 'team', id, name: `${team.name}（${owner}）` },
        before: { name: team.name, ownerId: team.owner_id, memberCount: team.member_count },
        after: null,
        reason: why,
      });
    return this.dissolveTeam(team, null, `平台运营人员已解散团队「${team.name}」，原因：${why}。`, record);
  }

  /** Deletes the team (only while `ownerId` owns it; null: any owner), then tells the members and invitees. */
  private async dissolveTeam(team: TeamWithRole, ownerId: string | null, said: string, inTx?: (tx: Tx) => Promise<void>): Promise<null> {
    const id = team.id;
    const members = (await this.repo.members(id)).map((m) => m.user_id);
    const invitees = (await this.repo.pendingOf(id, this.clock())).map((i) => i.invitee_id);
    if (!(await this.repo.dissolve(id, ownerId, inTx))) throw ownerId === null ? new AppError(ErrorCode.NOT_FOUND, `${TEAM}不存在`) : new AppError(ErrorCode.NO_PERMISSION);
    await this.membership(id);
    const content = `${said}团队空间与共享给团队的数据集、模型已不可访问，团队剩余算力不再可用，以团队付费运行的任务将被停止。`;
    for (const userId of members) {
      if (userId !== ownerId) await this.notify(userId, { type: 'team', title: `团队「${team.name}」已解散`, content, businessType: 'team', businessId: id });
    }
    for (const userId of new Set([...members, ...invitees])) await this.bus.publish(userId, { businessType: WS_TEAM_CHANGED, data: { teamId: id } });
    return null;
  }

  /**
   * Whether the caller may use the team's folder in 文件管理 now (ADR 0018): `team.read`, i.e. a member —
   * decided by the access policy like every other team read, asked by the file service on every call.
   */
  async usesSpace(p: Caller, teamId: string): Promise<boolean> {
    const row = await this.repo.find(teamId, p.userId);
    return row !== undefined && this.access.can(p, 'team.read', resourceOf(row, p));
  }

  // ---- helpers (also the invitation service's) ------------------------------------------------------------

  /** The team when the caller is a member; 1205 naming 团队 otherwise (never revealing that it exists). */
  async readable(p: Principal, id: string): Promise<TeamWithRole> {
    return this.access.found(p, 'team.read', await this.repo.find(id, p.userId), (r) => resourceOf(r, p), TEAM);
  }

  /** The team as the contract has it, for a member (what a change answers). */
  async team(p: Principal, id: string): Promise<Team> {
    const row = await this.readable(p, id);
    return toTeam(row, (await this.users.names([row.owner_id])).get(row.owner_id)?.username ?? '');
  }

  /** `team.changed` to every member now, and to `also` (an invitee, a member who just left). */
  async changed(teamId: string, also: readonly string[] = []): Promise<void> {
    const members = (await this.repo.members(teamId)).map((m) => m.user_id);
    for (const userId of new Set([...members, ...also])) await this.bus.publish(userId, { businessType: WS_TEAM_CHANGED, data: { teamId } });
  }

  // ---- team compute power (ADR 0017): the port the order module reads ------------------------------------

  /**
   * The team as a payer for the caller: `team.read` (any member: charge a task, read balance, records and
   * usage) or `team.manage` (owners and admins: buy). 1205 for a non-member (nothing about the team is told),
   * 1020 for a member without the right. Answers the payer key, the team's name and the caller's monthly
   * limit in card-seconds (null: none).
   */
  async payer(p: Principal, teamId: string, action: 'team.read' | 'team.manage'): Promise<TeamPayer> {
    const team = await this.readable(p, teamId);
    this.access.require(p, action, resourceOf(team, p));
    const limit = (await this.repo.limits(teamId)).get(p.userId);
    return { payer: teamPayer(teamId), teamId, name: team.name, limit: limit ?? null };
  }

  /** The members (with names and limits) for 团队详情's usage; any member may read it. */
  async usageMembers(p: Principal, teamId: string): Promise<{ payer: string; members: { userId: string; username: string; limit: number | null }[] }> {
    await this.readable(p, teamId);
    const [members, limits] = await Promise.all([this.repo.members(teamId), this.repo.limits(teamId)]);
    const names = await this.users.names(members.map((m) => m.user_id));
    return { payer: teamPayer(teamId), members: members.map((m) => ({ userId: m.user_id, username: names.get(m.user_id)?.username ?? '', limit: limits.get(m.user_id) ?? null })) };
  }

  /** Sets a member's monthly card-hour limit (owners and admins; the member must be in the team: 2606). */
  async setLimit(p: Principal, teamId: string, userId: string, cardHours: number | null): Promise<null> {
    const team = await this.readable(p, teamId);
    this.access.require(p, 'team.manage', resourceOf(team, p));
    if (!(await this.repo.member(teamId, userId))) throw new AppError(ErrorCode.TEAM_NOT_MEMBER);
    await this.repo.setLimit(teamId, userId, cardHours === null ? null : cardHours * 3600, p.userId, this.clock());
    await this.changed(teamId);
    return null;
  }

  /** Metering's check of running team-paid tasks: is the user still a member, and their limit. */
  async standing(pairs: { teamId: string; userId: string }[]): Promise<Map<string, TeamStanding>> {
    const s = await this.repo.standing(pairs);
    const out = new Map<string, TeamStanding>();
    for (const { teamId, userId } of pairs) {
      const key = `${teamId}|${userId}`;
      out.set(key, { teamName: s.names.get(teamId) ?? '', dissolved: !s.names.has(teamId), member: s.members.has(key), limit: s.limits.get(key) ?? null });
    }
    return out;
  }

  /**
   * The payers (`team:<id>`) that may pay for each user's tasks — the teams they are a member of. The balance
   * limits (issue 25) keep a cluster account open while one of them has compute power: a team-paid task runs
   * as the member's own cluster account.
   */
  async payersOf(userIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const m of await this.repo.teamsOf([...new Set(userIds)])) out.set(m.user_id, [...(out.get(m.user_id) ?? []), teamPayer(m.team_id)]);
    return out;
  }

  /**
   * Everyone who sees a team's compute power — every member (`team.read`: 团队详情's 团队算力, the task forms'
   * 预计最多消耗) — so metering and crediting can tell them with `comp-power.changed` when it moves.
   */
  async memberIds(teamId: string): Promise<string[]> {
    return (await this.repo.members(teamId)).map((m) => m.user_id);
  }

  /**
   * Operators' 算力发放 to a team (the grant service checks `compPower.grant`): the teams of this name, with
   * their owners' ids; and teams' names by id for the grants list (a dissolved team is missing).
   */
  async named(name: string): Promise<{ id: string; name: string; ownerId: string }[]> {
    return (await this.repo.named(name)).map((t) => ({ id: t.id, name: t.name, ownerId: t.owner_id }));
  }

  names(ids: readonly string[]): Promise<Map<string, string>> {
    return this.repo.names(ids);
  }

  // ---- shared work (ADR 0018): the port the asset module reads --------------------------------------------

  /** The teams the user is a member of now, with their role: what a team's share of an asset is decided by. */
  async rolesOf(userId: string): Promise<Map<string, TeamRole>> {
    return new Map((await this.repo.mine(userId)).map((t) => [t.id, t.my_role as TeamRole]));
  }

  /** The team when the caller is a member (`team.read`; 1205 naming 团队 otherwise): sharing with it, its list. */
  async memberTeam(p: Principal, teamId: string): Promise<{ id: string; name: string }> {
    const team = await this.readable(p, teamId);
    return { id: team.id, name: team.name };
  }
}

function toTeam(r: TeamWithRole, ownerName: string): Team {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    ownerId: r.owner_id,
    ownerName,
    myRole: (r.my_role ?? 'member') as TeamRole,
    memberCount: r.member_count,
    createTime: Number(r.create_time),
  };
}

function cleanName(name: string): string {
  const n = name.trim();
  if (!n) throw invalid('name', '不能为空');
  return n;
}

/** A stored limit (card-seconds) in whole 卡时 as set; null: none. */
function limitHours(cardSeconds: number | undefined): number | null {
  return cardSeconds === undefined ? null : Math.floor(cardSeconds / 3600);
}
