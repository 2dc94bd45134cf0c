import { ErrorCode, TEAM_INVITATION_BUSINESS_TYPE, TEAM_INVITATION_TTL_MS, type Team, type TeamInvitation, type TeamInvitationState } from '@suanli/contracts';
import type { Notify } from '../../context';
import { AppError, invalid } from '../../errors';
import { newId } from '../../lib/id';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { UserDirectory } from '../user/user-directory';
import type { InvitationRow, TeamRepository, TeamWithRole } from './team.repository';
import { invitationResource, resourceOf } from './team-resource';
import type { TeamService } from './team.service';

const INVITATION = '邀请';

/**
 * Invitations to a team (issue 21): owners and admins invite by username and cancel; the invitee reads and
 * answers. The invitee is told of an invitation by a `team` message 消息中心 answers; every member and the
 * invitee get `team.changed` after each change (through the team service, which owns the team's rules).
 */
export class TeamInvitationService {
  constructor(
    private readonly repo: TeamRepository,
    private readonly access: Pick<AccessService, 'require' | 'found'>,
    private readonly users: Pick<UserDirectory, 'names' | 'named'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly teams: Pick<TeamService, 'readable' | 'team' | 'changed'>,
    /** The members of a team changed (an invitation accepted): as the team service's (team.module.ts). */
    private readonly membership: (teamId: string) => Promise<void> = async () => {},
  ) {}

  async invite(p: Principal, id: string, username: string): Promise<TeamInvitation> {
    const team = await this.teams.readable(p, id);
    this.access.require(p, 'team.manage', resourceOf(team, p));
    const [user] = await this.users.named([username.trim()]);
    if (!user || user.status === 'disabled') throw invalid('username', '用户不存在');
    if (await this.repo.member(id, user.id)) throw new AppError(ErrorCode.TEAM_ALREADY_MEMBER);
    const now = this.clock();
    const row: InvitationRow = { id: newId(now), team_id: id, invitee_id: user.id, inviter_id: p.userId, state: 'pending', create_time: now, expire_time: now + TEAM_INVITATION_TTL_MS, answer_time: null };
    if (!(await this.repo.invite(row))) throw new AppError(ErrorCode.TEAM_INVITATION_PENDING);
    const names = await this.users.names([user.id, p.userId]);
    const inviter = names.get(p.userId)?.username ?? '';
    await this.notify(user.id, {
      type: 'team',
      title: `${inviter} 邀请您加入团队「${team.name}」`,
      content: `${inviter} 邀请您加入团队「${team.name}」，7 天内有效。接受后您将成为团队成员。`,
      businessType: TEAM_INVITATION_BUSINESS_TYPE,
      businessId: row.id,
    });
    await this.teams.changed(id, [user.id]);
    return toInvitation(row, team.name, names, this.clock());
  }

  /** The caller's invitations still waiting for an answer. */
  async myInvitations(p: Principal): Promise<TeamInvitation[]> {
    const rows = await this.repo.pendingFor(p.userId, this.clock());
    const teams = new Map<string, string>();
    for (const r of rows) if (!teams.has(r.team_id)) teams.set(r.team_id, (await this.repo.find(r.team_id, p.userId))?.name ?? '');
    const names = await this.users.names(rows.flatMap((r) => [r.invitee_id, r.inviter_id]));
    return rows.map((r) => toInvitation(r, teams.get(r.team_id) ?? '', names, this.clock()));
  }

  /** One invitation, for its invitee (消息中心 shows whether it can still be answered) and the team's admins. */
  async invitation(p: Principal, id: string): Promise<TeamInvitation> {
    const { inv, team } = await this.readableInvitation(p, id);
    const names = await this.users.names([inv.invitee_id, inv.inviter_id]);
    return toInvitation(inv, team?.name ?? '', names, this.clock());
  }

  async accept(p: Principal, id: string): Promise<Team> {
    const { inv, team } = await this.readableInvitation(p, id);
    this.access.require(p, 'team.invitation.answer', invitationResource(inv, team, p));
    if (!team || !(await this.repo.answer(id, 'accepted', this.clock()))) throw new AppError(ErrorCode.TEAM_INVITATION_CLOSED);
    await this.membership(team.id);
    await this.teams.changed(team.id, [p.userId]);
    return this.teams.team(p, team.id);
  }

  async decline(p: Principal, id: string): Promise<null> {
    const { inv, team } = await this.readableInvitation(p, id);
    this.access.require(p, 'team.invitation.answer', invitationResource(inv, team, p));
    if (!(await this.repo.answer(id, 'declined', this.clock()))) throw new AppError(ErrorCode.TEAM_INVITATION_CLOSED);
    if (team) await this.teams.changed(team.id, [p.userId]);
    return null;
  }

  async cancel(p: Principal, id: string): Promise<null> {
    const { inv, team } = await this.readableInvitation(p, id);
    // The invitee reads it but may only answer it.
    if (!team) throw new AppError(ErrorCode.TEAM_INVITATION_CLOSED);
    this.access.require(p, 'team.manage', resourceOf(team, p));
    if (!(await this.repo.answer(id, 'cancelled', this.clock()))) throw new AppError(ErrorCode.TEAM_INVITATION_CLOSED);
    await this.teams.changed(team.id, [inv.invitee_id]);
    return null;
  }

  /** An invitation and its team, when the caller is its invitee or an owner/admin of the team; 1205 otherwise. */
  private async readableInvitation(p: Principal, id: string): Promise<{ inv: InvitationRow; team: TeamWithRole | undefined }> {
    const inv = await this.repo.invitation(id);
    const team = inv && (await this.repo.find(inv.team_id, p.userId));
    this.access.found(p, 'team.invitation.read', inv, (r) => invitationResource(r, team, p), INVITATION);
    return { inv: inv!, team };
  }
}

/** An invitation as the contract has it; a pending one past its expiry (at `now`) reads `expired`. */
export function toInvitation(r: InvitationRow, teamName: string, names: Map<string, { username: string }>, now: number): TeamInvitation {
  const expired = r.state === 'pending' && Number(r.expire_time) <= now;
  return {
    id: r.id,
    teamId: r.team_id,
    teamName,
    inviteeId: r.invitee_id,
    inviteeName: names.get(r.invitee_id)?.username ?? '',
    inviterName: names.get(r.inviter_id)?.username ?? '',
    state: expired ? 'expired' : (r.state as TeamInvitationState),
    createTime: Number(r.create_time),
    expireTime: Number(r.expire_time),
  };
}
