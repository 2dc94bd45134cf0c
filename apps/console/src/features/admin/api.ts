import {
  AdminCenterApi,
  AdminOverviewApi,
  AdminTaskApi,
  AdminTeamApi,
  AdminUserApi,
  AuditApi,
  OutsideJobApi,
  RecordApi,
  type AdminGrantPageQuery,
  type AdminTeamPageQuery,
  type AdminUserPageQuery,
  type AdminUserStatusBody,
  type AuditPageQuery,
  type CenterPackagesBody,
  type CenterStatusBody,
  type GrantBody,
  type ReconcileQuery,
  type TaskKind,
} from '@suanli/contracts';
import { call } from '../../app/request';

/** 运营管理 (ADMIN_BASE): every call is refused with 1020 for anyone but an operator. */
export function pageUsers(query: AdminUserPageQuery) {
  return call(AdminUserApi.page, { body: query });
}

/** 运营管理 › 团队 (served by the team module). */
export function pageTeams(query: AdminTeamPageQuery) {
  return call(AdminTeamApi.page, { body: query });
}

/** 解散 a team as an operator: the reason goes to the audit log and to the members' message. */
export function dissolveTeam(id: string, reason: string) {
  return call(AdminTeamApi.dissolve, { params: { id }, body: { reason } });
}

/** 停止 a user's task as an operator (served by the task module): the reason goes to the task, the owner and the audit log. */
export function stopUserTask(kind: TaskKind, id: string, reason: string) {
  return call(AdminTaskApi.stop, { params: { kind, id }, body: { reason } });
}

export function getUser(id: string) {
  return call(AdminUserApi.detail, { params: { id } });
}

export function setUserStatus(id: string, to: 'active' | 'disabled', body: AdminUserStatusBody) {
  return call(to === 'disabled' ? AdminUserApi.disable : AdminUserApi.enable, { params: { id }, body });
}

export function pageAudit(query: AuditPageQuery) {
  return call(AuditApi.page, { body: query });
}

export function listCenters() {
  return call(AdminCenterApi.list);
}

export function setCenterStatus(id: string, body: CenterStatusBody) {
  return call(AdminCenterApi.setStatus, { params: { id }, body });
}

export function setCenterPackages(id: string, body: CenterPackagesBody) {
  return call(AdminCenterApi.setPackages, { params: { id }, body });
}

/** 算力发放: give a user (by username) compute power; audited on the server. */
export function grantCompPower(body: GrantBody) {
  return call(RecordApi.grant, { body });
}

export function pageGrants(query: AdminGrantPageQuery) {
  return call(RecordApi.grants, { body: query });
}

/** 平台概览 over the last `days` calendar days (UTC+8). */
export function getOverview(days: number) {
  return call(AdminOverviewApi.get, { query: { days } });
}

/** 计量对账 (issue 25): accounting against draws per center and day, every difference listed. */
export function reconcile(body: ReconcileQuery) {
  return call(OutsideJobApi.reconcile, { body });
}
