import { RecordApi, type CompPowers } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from './query-keys';
import { call } from './request';
import { useUserStore } from './stores/user-store';

/**
 * The caller's remaining compute power: per bucket in native 卡时, and the normalised total in 标准卡时 — the
 * header's figure, also remembered in the user info (shown before the first answer of a new page load).
 */
export async function fetchCompPowers(userId: string): Promise<CompPowers> {
  const data = await call(RecordApi.compPowers, { params: { userId } });
  useUserStore.getState().setUserInfo({ personalCompPower: data.standardTotal });
  return data;
}

export function useCompPowers(userId: string | undefined) {
  return useQuery({
    queryKey: queryKeys.compPowers(userId),
    queryFn: () => fetchCompPowers(userId!),
    enabled: Boolean(userId),
    // Refetched explicitly on every avatar-menu open and on `comp-power.changed`.
    staleTime: 0,
  });
}
