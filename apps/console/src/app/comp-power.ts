import { ORDER_BASE, type CompPowers } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from './query-keys';
import { request } from './request';
import { useUserStore } from './stores/user-store';

/** The caller's remaining compute power (卡时): the header's figure, also remembered in the user info. */
export async function fetchCompPowers(userId: string): Promise<CompPowers> {
  const data = await request.get<CompPowers>(`${ORDER_BASE}/comp-powers/${encodeURIComponent(userId)}`);
  useUserStore.getState().setUserInfo({ personalCompPower: data.total });
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
