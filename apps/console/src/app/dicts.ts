import { FoundationApi, type DictEntry } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from './query-keys';
import { call } from './request';
import { useUserStore } from './stores/user-store';

export interface DictView {
  /** dictValue → dictLabel, for rendering a stored state. */
  labels: Record<string, string>;
  /** For Select/filters, in the dictionary's order. */
  options: { label: string; value: string }[];
}

export function toDictView(entries: DictEntry[]): DictView {
  const sorted = [...entries].sort((a, b) => a.sort - b.sort);
  return {
    labels: Object.fromEntries(sorted.map((e) => [e.dictValue, e.dictLabel])),
    options: sorted.map((e) => ({ label: e.dictLabel, value: e.dictValue })),
  };
}

export function fetchDict(name: string): Promise<DictEntry[]> {
  return call(FoundationApi.dict, { params: { dictName: name } });
}

const EMPTY: DictView = { labels: {}, options: [] };

/** A dictionary as a lookup and as options; loaded once per session (dictionaries change with releases). */
export function useDict(name: string): DictView & { isLoading: boolean } {
  const signedIn = useUserStore((s) => Boolean(s.userInfo.token));
  const query = useQuery({
    queryKey: queryKeys.dict(name),
    queryFn: () => fetchDict(name),
    select: toDictView,
    enabled: signedIn,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  return { ...(query.data ?? EMPTY), isLoading: query.isLoading };
}

/** The task-state dictionary every task list and detail renders with. */
export function useJobStates(): DictView & { isLoading: boolean } {
  return useDict('job_states');
}
