import {
  ADMIN_BASE,
  type AdminUser,
  type AdminUserDetail,
  type AdminUserPage,
  type AdminUserPageQuery,
  type AdminUserStatusBody,
  type AuditPage,
  type AuditPageQuery,
} from '@suanli/contracts';
import { request } from '../../app/request';

/** 运营管理 (ADMIN_BASE): every call is refused with 1020 for anyone but an operator. */
export function pageUsers(query: AdminUserPageQuery): Promise<AdminUserPage> {
  return request.post<AdminUserPage>(`${ADMIN_BASE}/users/action/page`, { data: query });
}

export function getUser(id: string): Promise<AdminUserDetail> {
  return request.get<AdminUserDetail>(`${ADMIN_BASE}/users/${encodeURIComponent(id)}`);
}

export function setUserStatus(id: string, to: 'active' | 'disabled', body: AdminUserStatusBody): Promise<AdminUser> {
  return request.post<AdminUser>(`${ADMIN_BASE}/users/${encodeURIComponent(id)}/${to === 'disabled' ? 'disable' : 'enable'}`, { data: body });
}

export function pageAudit(query: AuditPageQuery): Promise<AuditPage> {
  return request.post<AuditPage>(`${ADMIN_BASE}/audit-logs/action/page`, { data: query });
}
