/** Web shell calls (ESHELL_BASE, docs/plan/10.md "Web shell"), through the console's one request pipeline. */
import { ESHELL_BASE, type AccessSessionPage, type AccessSessionQuery, type ShellCenterList } from '@suanli/contracts';
import { request } from '../../app/request';

export function fetchShellCenters(): Promise<ShellCenterList> {
  return request.get<ShellCenterList>(`${ESHELL_BASE}/centers`);
}

export function pageShellSessions(query: AccessSessionQuery): Promise<AccessSessionPage> {
  return request.post<AccessSessionPage>(`${ESHELL_BASE}/session/page`, { data: query });
}
