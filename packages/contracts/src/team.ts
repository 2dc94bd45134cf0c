import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Null } from './common';
import { route, type SchemasOf } from './route';

/** 团队管理 (issue 21): teams, their members with roles, invitations. */
export const TEAM_BASE = '/gateway/team/api/v1';

export const TEAM_ROLES = ['owner', 'admin', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
export const TEAM_ROLE_LABELS: Record<TeamRole, string> = { owner: '所有者', admin: '管理员', member: '成员' };

export const TEAM_INVITATION_STATES = ['pending', 'accepted', 'declined', 'expired', 'cancelled'] as const;
export type TeamInvitationState = (typeof TEAM_INVITATION_STATES)[number];
export const TEAM_INVITATION_STATE_LABELS: Record<TeamInvitationState, string> = {
  pending: '待回应',
  accepted: '已接受',
  declined: '已拒绝',
  expired: '已过期',
  cancelled: '已取消',
};
/** An invitation not answered within this expires (domain.md, Teams). */
export const TEAM_INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** The message an invitation arrives as (`businessId` is the invitation's id): 消息中心 offers 接受 / 拒绝 on it. */
export const TEAM_INVITATION_BUSINESS_TYPE = 'team.invitation';
export const TEAM_NAME_MAX = 64;

/**
 * A team as a payer (ADR 0017): its buckets, orders' credits, team-paid tasks and their consume records name
 * the team in the owner/payer column as `team:<teamId>`; a user id never starts so.
 */
export const TEAM_PAYER_PREFIX = 'team:';
export const teamPayer = (teamId: string) => `${TEAM_PAYER_PREFIX}${teamId}`;
/** The team id of a payer, or null for a user (or none). */
export const teamOfPayer = (payer: string | null | undefined): string | null => (payer?.startsWith(TEAM_PAYER_PREFIX) ? payer.slice(TEAM_PAYER_PREFIX.length) : null);
/** The largest monthly limit a member may be given, in 卡时. */
export const TEAM_MEMBER_LIMIT_MAX = 1_000_000;
export const TEAM_DESCRIPTION_MAX = 500;

const Role = Type.Union(TEAM_ROLES.map((r) => Type.Literal(r)));
/** A role the owner may give: ownership moves only by transfer. */
const AssignableRole = Type.Union([Type.Literal('admin'), Type.Literal('member')]);

export const Team = Type.Object({
  id: Id,
  name: Type.String(),
  description: Type.String(),
  ownerId: Id,
  ownerName: Type.String(),
  /** The caller's role in it. */
  myRole: Role,
  memberCount: Type.Integer(),
  createTime: Millis,
});
export type Team = Static<typeof Team>;
export const TeamList = Type.Array(Team);
export type TeamList = Static<typeof TeamList>;

export const TeamMember = Type.Object({
  userId: Id,
  username: Type.String(),
  nickname: Type.String(),
  role: Role,
  joinTime: Millis,
  /** Monthly card-hour limit on team-paid tasks (ADR 0017); null: none. */
  limitCardHours: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});
export type TeamMember = Static<typeof TeamMember>;

export const TeamInvitation = Type.Object({
  id: Id,
  teamId: Id,
  teamName: Type.String(),
  inviteeId: Id,
  inviteeName: Type.String(),
  inviterName: Type.String(),
  /** `expired` once `expireTime` has passed without an answer. */
  state: Type.Union(TEAM_INVITATION_STATES.map((s) => Type.Literal(s))),
  createTime: Millis,
  expireTime: Millis,
});
export type TeamInvitation = Static<typeof TeamInvitation>;
export const TeamInvitationList = Type.Array(TeamInvitation);
export type TeamInvitationList = Static<typeof TeamInvitationList>;

/** The team's storage area on one center (ADR 0018): the folder members' jobs and shells read and write. */
export const TeamArea = Type.Object({
  subCenterId: Type.String(),
  subCenterName: Type.String(),
  /** The folder as the center's hosts see it (jobs, shells): `<storage>/teams/<teamId>`. */
  path: Type.String(),
});
export type TeamArea = Static<typeof TeamArea>;

export const TeamDetail = Type.Composite([
  Team,
  Type.Object({
    members: Type.Array(TeamMember),
    /** 团队空间: the team's folder on each center. */
    areas: Type.Array(TeamArea),
    /** Invitations waiting for an answer; only owners and admins see them (empty for members). */
    invitations: Type.Array(TeamInvitation),
  }),
]);
export type TeamDetail = Static<typeof TeamDetail>;

/** Names are unique per owner (two teams of one owner never share a name); different owners may reuse one. */
export const TeamCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: TEAM_NAME_MAX }),
  description: Type.Optional(Type.String({ maxLength: TEAM_DESCRIPTION_MAX })),
});
export type TeamCreate = Static<typeof TeamCreate>;
export const TeamUpdate = TeamCreate;
export type TeamUpdate = Static<typeof TeamUpdate>;

export const TeamInvite = Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) });
export type TeamInvite = Static<typeof TeamInvite>;

export const TeamMemberParams = Type.Object({ id: Id, userId: Id });
export type TeamMemberParams = Static<typeof TeamMemberParams>;
export const TeamRoleChange = Type.Object({ role: AssignableRole });
export type TeamRoleChange = Static<typeof TeamRoleChange>;
export const TeamTransfer = Type.Object({ userId: Id });
export type TeamTransfer = Static<typeof TeamTransfer>;

/** `team.changed`: a team's name, members, roles or invitations changed (sent to its members and the invitee). */
export interface TeamChanged {
  teamId: string;
}

/**
 * A member's monthly card-hour limit on team-paid tasks (all card types together); absent: no limit. (Not a
 * null: the server's validator coerces a null to 0 for an integer, which would block the member instead.)
 */
export const TeamMemberLimit = Type.Object({ cardHours: Type.Optional(Type.Integer({ minimum: 0, maximum: TEAM_MEMBER_LIMIT_MAX })) });
export type TeamMemberLimit = Static<typeof TeamMemberLimit>;

/** A standalone file service's question (ADR 0018): the caller's cluster account on a center, for a team's folder. */
export const AgentTeamSpaceQuery = Type.Object({ subCenterId: Id, teamId: Id });
export type AgentTeamSpaceQuery = Static<typeof AgentTeamSpaceQuery>;
export const AgentTeamSpace = Type.Object({ account: Type.String(), status: Type.String() });
export type AgentTeamSpace = Static<typeof AgentTeamSpace>;

export const TeamApi = {
  list: route<{ response: typeof TeamList }>('GET', TEAM_BASE, '/teams'),
  create: route<{ body: typeof TeamCreate; response: typeof Team }>('POST', TEAM_BASE, '/teams'),
  detail: route<{ params: typeof IdParams; response: typeof TeamDetail }>('GET', TEAM_BASE, '/teams/:id'),
  update: route<{ params: typeof IdParams; body: typeof TeamUpdate; response: typeof Team }>('POST', TEAM_BASE, '/teams/:id/update'),
  invite: route<{ params: typeof IdParams; body: typeof TeamInvite; response: typeof TeamInvitation }>('POST', TEAM_BASE, '/teams/:id/invitations'),
  setRole: route<{ params: typeof TeamMemberParams; body: typeof TeamRoleChange; response: typeof TeamMember }>('POST', TEAM_BASE, '/teams/:id/members/:userId/role'),
  removeMember: route<{ params: typeof TeamMemberParams; response: typeof Null }>('DELETE', TEAM_BASE, '/teams/:id/members/:userId'),
  leave: route<{ params: typeof IdParams; response: typeof Null }>('POST', TEAM_BASE, '/teams/:id/leave'),
  transfer: route<{ params: typeof IdParams; body: typeof TeamTransfer; response: typeof Team }>('POST', TEAM_BASE, '/teams/:id/transfer'),
  dissolve: route<{ params: typeof IdParams; response: typeof Null }>('DELETE', TEAM_BASE, '/teams/:id'),
  myInvitations: route<{ response: typeof TeamInvitationList }>('GET', TEAM_BASE, '/invitations'),
  invitation: route<{ params: typeof IdParams; response: typeof TeamInvitation }>('GET', TEAM_BASE, '/invitations/:id'),
  accept: route<{ params: typeof IdParams; response: typeof Team }>('POST', TEAM_BASE, '/invitations/:id/accept'),
  decline: route<{ params: typeof IdParams; response: typeof Null }>('POST', TEAM_BASE, '/invitations/:id/decline'),
  cancel: route<{ params: typeof IdParams; response: typeof Null }>('POST', TEAM_BASE, '/invitations/:id/cancel'),
  setLimit: route<{ params: typeof TeamMemberParams; body: typeof TeamMemberLimit; response: typeof Null }>('POST', TEAM_BASE, '/teams/:id/members/:userId/limit'),
  agentSpace: route<{ query: typeof AgentTeamSpaceQuery; response: typeof AgentTeamSpace }>('GET', TEAM_BASE, '/agent/team/space'),
};

export const TeamApiSchemas: SchemasOf<typeof TeamApi> = {
  list: { summary: '我的团队（含我的角色与成员数）', response: TeamList },
  create: { summary: '创建团队（创建者为所有者；同一所有者的团队不重名）', body: TeamCreate, response: Team },
  detail: { summary: '团队详情（成员与角色；所有者和管理员另见待回应的邀请）', params: IdParams, response: TeamDetail },
  update: { summary: '修改名称与简介（所有者、管理员）', params: IdParams, body: TeamUpdate, response: Team },
  invite: { summary: '按用户名邀请成员（所有者、管理员；7 天内有效）', params: IdParams, body: TeamInvite, response: TeamInvitation },
  setRole: { summary: '设置成员角色（仅所有者）', params: TeamMemberParams, body: TeamRoleChange, response: TeamMember },
  removeMember: { summary: '移除成员（管理员移除成员；所有者另可移除管理员）', params: TeamMemberParams, response: Null },
  leave: { summary: '退出团队（所有者需先转让）', params: IdParams, response: Null },
  transfer: { summary: '转让团队（仅所有者；原所有者成为管理员）', params: IdParams, body: TeamTransfer, response: Team },
  dissolve: { summary: '解散团队（仅所有者）', params: IdParams, response: Null },
  myInvitations: { summary: '发给我的待回应邀请', response: TeamInvitationList },
  invitation: { summary: '一条邀请（被邀请人，或该团队的所有者、管理员）', params: IdParams, response: TeamInvitation },
  accept: { summary: '接受邀请（仅被邀请人）', params: IdParams, response: Team },
  decline: { summary: '拒绝邀请（仅被邀请人）', params: IdParams, response: Null },
  cancel: { summary: '撤回邀请（所有者、管理员）', params: IdParams, response: Null },
  setLimit: { summary: '设置成员每月算力限额（卡时，所有卡型合计；不传为不限；所有者、管理员）', params: TeamMemberParams, body: TeamMemberLimit, response: Null },
  agentSpace: { summary: '团队空间：我在该分中心的集群账号（仅成员；独立文件服务使用）', querystring: AgentTeamSpaceQuery, response: AgentTeamSpace },
};
