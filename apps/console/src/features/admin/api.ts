import { AdminUserApi, AuditApi, RecordApi, type AdminGrantPageQuery, type AdminUserPageQuery, type AdminUserStatusBody, type AuditPageQuery, type GrantBody } from '@suanli/contracts';
import { call } from '../../app/request';

/** 运营管理 (ADMIN_BASE): every call is refused with 1020 for anyone but an operator. */
export function pageUsers(query: AdminUserPageQuery) {
  return call(AdminUserApi.page, { body: query });
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

/** 算力发放: give a user (by username) compute power; audited on the server. */
export function grantCompPower(body: GrantBody) {
  return call(RecordApi.grant, { body });
}

export function pageGrants(query: AdminGrantPageQuery) {
  return call(RecordApi.grants, { body: query });
}
