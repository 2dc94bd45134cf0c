import { MessageApi } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from './query-keys';
import { call } from './request';
import { useUserStore } from './stores/user-store';

/** Unviewed messages since the account was created (spec: startTime = the user's createTime). */
export function fetchUnreadCount(startTime: number | undefined): Promise<number> {
  return call(MessageApi.unviewCount, { body: startTime === undefined ? {} : { startTime } });
}

/** The bell's badge. The socket adds to this cache entry; reading messages invalidates it. */
export function useUnreadCount() {
  const userId = useUserStore((s) => s.userInfo.id);
  const createTime = useUserStore((s) => s.userInfo.createTime);
  return useQuery({
    queryKey: queryKeys.unreadCount(userId),
    queryFn: () => fetchUnreadCount(createTime),
    enabled: Boolean(userId),
    staleTime: Infinity,
  });
}
