import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Null, Page, PageQuery } from './common';
import { route, type SchemasOf } from './route';
import { JobState, Task, TaskKind } from './task';
import { ClusterAccount, Role } from './user';

/**
 * 运营管理 (issue 20): the operators' console. Every call under this base is for operators only — anyone else
 * gets 1020 before validation (route config `role: 'operator'`), so a refusal says nothing about the body or
 * the data. Each operator action writes one audit entry (审计日志) in the same transaction as its effect.
 */
export const ADMIN_BASE = '/gateway/admin/api/v1';

export const ACCOUNT_STATUSES = ['active', 'disabled'] as const;
export const AccountStatus = Type.Union(ACCOUNT_STATUSES.map((s) => Type.Literal(s)));
export type AccountStatus = Static<typeof AccountStatus>;

// ---- 用户 -----------------------------------------------------------------------------------------------

/**
 * `POST /users/action/page`: a keyword matched against username, nickname, phone and e-mail (contains,
 * ignoring ASCII case); optionally only active or only disabled accounts. Newest accounts first.
 */
export const AdminUserPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    keyword: Type.Optional(Type.String({ maxLength: 128 })),
    status: Type.Optional(AccountStatus),
  }),
]);
export type AdminUserPageQuery = Static<typeof AdminUserPageQuery>;

/** A user as operators see them: contacts unmasked (they answer the phone), roles and account state. */
export const AdminUser = Type.Object({
  id: Id,
  username: Type.String(),
  nickname: Type.String(),
  phone: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  headImage: Type.Union([Type.String(), Type.Null()]),
  status: AccountStatus,
  roles: Type.Array(Role),
  createTime: Millis,
});
export type AdminUser = Static<typeof AdminUser>;

export const AdminUserPage = Page(AdminUser);
export type AdminUserPage = Static<typeof AdminUserPage>;

/** One of the user's tasks holding cards now (the task module's usage port). */
export const AdminUserTask = Type.Object({
  id: Id,
  kind: TaskKind,
  type: Type.String(),
  name: Type.String(),
  state: JobState,
  subCenterId: Id,
  cardTypeId: Type.String(),
  cardNum: Type.Integer(),
  nodeNum: Type.Integer(),
  startTime: Type.Union([Millis, Type.Null()]),
});
export type AdminUserTask = Static<typeof AdminUserTask>;

/** `GET /users/{id}`: the account, its cluster accounts per center, and its tasks running now. */
export const AdminUserDetail = Type.Composite([
  AdminUser,
  Type.Object({
    /** The POSIX account per center, on the centers where one was made (first use). */
    clusterAccounts: Type.Array(ClusterAccount),
    runningTasks: Type.Array(AdminUserTask),
  }),
]);
export type AdminUserDetail = Static<typeof AdminUserDetail>;

/** `POST /users/{id}/disable` and `/enable`: the reason is kept in the audit entry (and shown to nobody else). */
export const AdminUserStatusBody = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 200 })),
});
export type AdminUserStatusBody = Static<typeof AdminUserStatusBody>;

// ---- 审计日志 ---------------------------------------------------------------------------------------------

/** Who acted: an operator through the console, or someone at the server running `npm run admin`. */
export const AuditActorKind = Type.Union([Type.Literal('operator'), Type.Literal('command')]);
export type AuditActorKind = Static<typeof AuditActorKind>;

/**
 * Actions recorded so far, with their Chinese names in AUDIT_ACTION_LABELS. Other modules' operator actions
 * (算力发放, 订单确认, 分中心维护, 审核…) add theirs here, named `<target>.<verb>`.
 */
export const AUDIT_ACTIONS = ['user.disable', 'user.enable', 'role.grant', 'role.revoke', 'workorder.resolve', 'workorder.close', 'center.status', 'center.packages', 'order.confirm', 'asset.review', 'image.review', 'compPower.grant', 'team.dissolve', 'task.stop', 'rsaKey.rotate', 'rsaKey.retire'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'user.disable': '禁用账号',
  'user.enable': '启用账号',
  'role.grant': '授予角色',
  'role.revoke': '撤销角色',
  'workorder.resolve': '工单标记已解决',
  'workorder.close': '关闭工单',
  'center.status': '设置分中心状态',
  'center.packages': '修改算力卡与价格',
  'order.confirm': '确认转账到账',
  'asset.review': '审核公开申请',
  'image.review': '审核公共镜像',
  'compPower.grant': '发放算力',
  'team.dissolve': '解散团队',
  'task.stop': '停止任务',
  'rsaKey.rotate': '轮换 RSA 密钥',
  'rsaKey.retire': '停用 RSA 密钥',
};
export const AUDIT_TARGET_LABELS: Record<string, string> = { user: '用户', workorder: '工单', center: '分中心', order: '订单', dataset: '数据集', model: '模型', image: '镜像', team: '团队', task: '任务', rsaKey: 'RSA 密钥' };

export const AuditEntry = Type.Object({
  id: Id,
  actorKind: AuditActorKind,
  /** The operator's user id; null for the server command. */
  actorId: Type.Union([Id, Type.Null()]),
  /** The operator's username, or `<os user>@<host>` for the server command, as it was at the time. */
  actorName: Type.String(),
  action: Type.String(),
  targetType: Type.String(),
  targetId: Type.String(),
  /** How the target was named at the time (a username). */
  targetName: Type.String(),
  /** The target's state before and after, as JSON text (null: it did not exist / no longer exists). */
  before: Type.Union([Type.String(), Type.Null()]),
  after: Type.Union([Type.String(), Type.Null()]),
  /** The reason the operator gave, if any. */
  reason: Type.String(),
  /** The operator's address (null for the server command). */
  ip: Type.Union([Type.String(), Type.Null()]),
  createTime: Millis,
});
export type AuditEntry = Static<typeof AuditEntry>;

/**
 * `POST /audit-logs/action/page`: newest first. `actor` matches the actor's name (contains), `target` the
 * target's id exactly or its name (contains); times are epoch ms, `startTime` inclusive, `endTime` exclusive.
 */
export const AuditPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    actor: Type.Optional(Type.String({ maxLength: 128 })),
    action: Type.Optional(Type.String({ maxLength: 64 })),
    target: Type.Optional(Type.String({ maxLength: 128 })),
    startTime: Type.Optional(Millis),
    endTime: Type.Optional(Millis),
  }),
]);
export type AuditPageQuery = Static<typeof AuditPageQuery>;

export const AuditPage = Page(AuditEntry);
export type AuditPage = Static<typeof AuditPage>;

// ---- route descriptors (packages/contracts/src/route.ts) ------------------------------------------------

/** 运营管理 › 用户: served by the user module. */
export const AdminUserApi = {
  page: route<{ body: typeof AdminUserPageQuery; response: typeof AdminUserPage }>('POST', ADMIN_BASE, '/users/action/page', { role: 'operator' }),
  detail: route<{ params: typeof IdParams; response: typeof AdminUserDetail }>('GET', ADMIN_BASE, '/users/:id', { role: 'operator' }),
  disable: route<{ params: typeof IdParams; body: typeof AdminUserStatusBody; response: typeof AdminUser }>('POST', ADMIN_BASE, '/users/:id/disable', { role: 'operator' }),
  enable: route<{ params: typeof IdParams; body: typeof AdminUserStatusBody; response: typeof AdminUser }>('POST', ADMIN_BASE, '/users/:id/enable', { role: 'operator' }),
};

export const AdminUserApiSchemas: SchemasOf<typeof AdminUserApi> = {
  page: { summary: '查找用户（用户名、昵称、手机号、邮箱；运营人员）', body: AdminUserPageQuery, response: AdminUserPage },
  detail: { summary: '用户详情（角色、集群账号、运行中的任务；运营人员）', params: IdParams, response: AdminUserDetail },
  disable: { summary: '禁用账号（立即结束其所有会话；运营人员）', params: IdParams, body: AdminUserStatusBody, response: AdminUser },
  enable: { summary: '启用账号（运营人员）', params: IdParams, body: AdminUserStatusBody, response: AdminUser },
};

// ---- 团队 -----------------------------------------------------------------------------------------------

/**
 * `POST /teams/action/page` (served by the team module): every team, newest first; a keyword matches the
 * team's name (contains, ASCII case ignored) or its owner's exact username.
 */
export const AdminTeamPageQuery = Type.Composite([PageQuery, Type.Object({ keyword: Type.Optional(Type.String({ maxLength: 128 })) })]);
export type AdminTeamPageQuery = Static<typeof AdminTeamPageQuery>;

/** A team as operators see it: who owns it and how big it is (its name is what 算力发放 to a team asks for). */
export const AdminTeam = Type.Object({
  id: Id,
  name: Type.String(),
  description: Type.String(),
  ownerId: Id,
  ownerUsername: Type.String(),
  ownerNickname: Type.String(),
  memberCount: Type.Integer(),
  createTime: Millis,
});
export type AdminTeam = Static<typeof AdminTeam>;

export const AdminTeamPage = Page(AdminTeam);
export type AdminTeamPage = Static<typeof AdminTeamPage>;

/** `POST /teams/{id}/dissolve` (operators): the reason goes to the audit entry and to the members' message. */
export const AdminTeamDissolve = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 200 }) });
export type AdminTeamDissolve = Static<typeof AdminTeamDissolve>;

export const AdminTeamApi = {
  page: route<{ body: typeof AdminTeamPageQuery; response: typeof AdminTeamPage }>('POST', ADMIN_BASE, '/teams/action/page', { role: 'operator' }),
  dissolve: route<{ params: typeof IdParams; body: typeof AdminTeamDissolve; response: typeof Null }>('POST', ADMIN_BASE, '/teams/:id/dissolve', { role: 'operator' }),
};

export const AdminTeamApiSchemas: SchemasOf<typeof AdminTeamApi> = {
  page: { summary: '全部团队（名称或所有者用户名；运营人员）', body: AdminTeamPageQuery, response: AdminTeamPage },
  dissolve: { summary: '解散团队（运营人员；须填写原因，记入审计日志并告知成员）', params: IdParams, body: AdminTeamDissolve, response: Null },
};

// ---- 任务 -----------------------------------------------------------------------------------------------

/** A task of either family by its kind and id (the owner's routes live under each family's base). */
export const AdminTaskParams = Type.Object({ kind: TaskKind, id: Id });
export type AdminTaskParams = Static<typeof AdminTaskParams>;

/**
 * `POST /tasks/{kind}/{id}/stop` (served by the task module): the reason is required — it becomes the task's
 * reason (`运营人员停止：<reason>`, kept when it ends STOPPED), goes to the audit entry and to the owner's message.
 */
export const AdminTaskStop = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 200 }) });
export type AdminTaskStop = Static<typeof AdminTaskStop>;

/** 运营管理 › 用户 › 运行中的任务: an operator stops any user's task (design/domain.md: STOPPED "by the user or an operator"). */
export const AdminTaskApi = {
  stop: route<{ params: typeof AdminTaskParams; body: typeof AdminTaskStop; response: typeof Task }>('POST', ADMIN_BASE, '/tasks/:kind/:id/stop', { role: 'operator' }),
};

export const AdminTaskApiSchemas: SchemasOf<typeof AdminTaskApi> = {
  stop: { summary: '停止任意用户的任务（运营人员；须填写原因，记入审计日志并告知任务所有者）', params: AdminTaskParams, body: AdminTaskStop, response: Task },
};

/** 审计日志: served by the audit module. One read; there is deliberately no call that changes an entry. */
export const AuditApi = {
  page: route<{ body: typeof AuditPageQuery; response: typeof AuditPage }>('POST', ADMIN_BASE, '/audit-logs/action/page', { role: 'operator' }),
};

export const AuditApiSchemas: SchemasOf<typeof AuditApi> = {
  page: { summary: '审计日志（运营人员；最新的在前）', body: AuditPageQuery, response: AuditPage },
};
