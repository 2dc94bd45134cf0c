/** Web shell calls (ESHELL_BASE, docs/plan/10.md "Web shell"), through the console's one request pipeline. */
import { ESHELL_BASE, type AccessSessionAdminPage, type AccessSessionPage, type AccessSessionQuery, type ShellCenterList } from '@suanli/contracts';
import { request } from '../../app/request';

export function fetchShellCenters(): Promise<ShellCenterList> {
  return request.get<ShellCenterList>(`${ESHELL_BASE}/centers`);
}

/** The caller's own shell and proxy sessions, newest first. */
export function pageShellSessions(query: AccessSessionQuery): Promise<AccessSessionPage> {
  return request.post<AccessSessionPage>(`${ESHELL_BASE}/session/page`, { data: query });
}

/** Operators: every user's sessions with the user id and address (anyone else gets 1020). */
export function pageAllShellSessions(query: AccessSessionQuery): Promise<AccessSessionAdminPage> {
  return request.post<AccessSessionAdminPage>(`${ESHELL_BASE}/admin/session/page`, { data: query });
}
