import { SYNC_ACTIVE_MAX, type Page, type SyncJob, type SyncPageQuery } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { create } from 'zustand';
import { queryKeys } from '../../app/query-keys';
import { cancelSync, pageSyncs } from './api';

/**
 * How many sync jobs this page has created. The header's task panel opens on its sync tab when the number
 * changes: a job made here is new whether or not the active list had answered before it was made (the list's
 * first answer would otherwise count it among the jobs that were there already).
 */
export const useSyncsCreatedHere = create<{ count: number }>()(() => ({ count: 0 }));
export const noteSyncCreated = () => useSyncsCreatedHere.setState((s) => ({ count: s.count + 1 }));

/** All of the caller's unfinished jobs (there are at most SYNC_ACTIVE_MAX). */
const ACTIVE_QUERY: SyncPageQuery = { scope: 'active', pageNum: 1, pageSize: SYNC_ACTIVE_MAX };
/** The newest jobs of any state: the panel's recent finished ones come from here. */
const RECENT_QUERY: SyncPageQuery = { scope: 'all', pageNum: 1, pageSize: 20 };

const ACTIVE_FIRST: Record<SyncJob['state'], number> = { RUNNING: 0, QUEUED: 1, SUCCEEDED: 2, FAILED: 2, CANCELLED: 2 };
export const isActive = (job: SyncJob) => job.state === 'QUEUED' || job.state === 'RUNNING';

// Both lists are kept current by `sync.changed` (app/live-updates.ts) and refetched on every socket
// (re)connect, so they are never stale on a timer and the browser never polls.
const options = (query: SyncPageQuery, enabled = true) => ({
  queryKey: queryKeys.sync.list(query),
  queryFn: () => pageSyncs(query),
  staleTime: Infinity,
  retry: 1,
  enabled,
});

/** The caller's unfinished jobs: the header button's badge counts them. */
export function useActiveSyncs() {
  return useQuery<Page<SyncJob>>(options(ACTIVE_QUERY));
}

/** The panel's list: every active job (running, then queued, oldest first), then recent finished ones, newest first. */
export function useSyncJobs() {
  const active = useActiveSyncs();
  const recent = useQuery<Page<SyncJob>>(options(RECENT_QUERY));
  const seen = new Set<string>();
  const jobs = [...(active.data?.list ?? []), ...(recent.data?.list ?? [])]
    .filter((j) => !seen.has(j.id) && seen.add(j.id))
    .sort((a, b) => {
      const rank = ACTIVE_FIRST[a.state] - ACTIVE_FIRST[b.state];
      if (rank !== 0) return rank;
      return isActive(a) ? a.createTime - b.createTime : (b.finishTime ?? b.updateTime) - (a.finishTime ?? a.updateTime);
    });
  return {
    jobs,
    isLoading: active.isLoading || recent.isLoading,
    error: active.error ?? recent.error,
    refetch: () => Promise.all([active.refetch(), recent.refetch()]),
  };
}

/** 取消: the answer is the cancelled job; the lists are refetched (it leaves the active ones). */
export function useCancelSync() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => cancelSync(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.sync.listRoot }),
  });
}
