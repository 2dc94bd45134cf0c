import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { queryKeys } from '../../app/query-keys';
import { NoPermission } from '../../shared/ui/no-permission';
import { PageLoading } from '../../shared/ui/page-loading';
import { getCurrentUser } from '../user-center/api';

/**
 * The pages of 运营管理 render for operators only. The roles are read fresh from the gateway on every visit
 * (a role taken away since login shows as no permission here, not as a page of refused calls); the
 * gateway still refuses every call of these pages to anyone else.
 */
export function OperatorOnly({ title, children }: { title: string; children: ReactNode }) {
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 0 });
  if (!me.data) return me.isError ? <NoPermission title={title} description="无法确认您的账号权限，请刷新页面重试。" /> : <PageLoading />;
  if (!me.data.roles.includes('operator')) return <NoPermission title={title} description="此页面仅对平台运营人员开放。如需开通，请联系平台管理员。" />;
  return <>{children}</>;
}
