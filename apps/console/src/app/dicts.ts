import { dictEntries, FoundationApi, type DictEntry } from '@suanli/contracts';
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
const builtIn = new Map<string, DictView>();
/**
 * The labels the console was built with, shown while the server's dictionary loads: a stored state reads
 * 运行成功 from the first paint rather than SUCCEEDED until the request returns. The server's answer wins.
 */
export function builtInView(name: string): DictView {
  let view = builtIn.get(name);
  if (!view) {
    const entries = dictEntries(name);
    view = entries.length ? toDictView(entries) : EMPTY;
    builtIn.set(name, view);
  }
  return view;
}

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
  return { ...(query.data ?? builtInView(name)), isLoading: query.isLoading };
}

/** The task-state dictionary every task list and detail renders with. */
export function useJobStates(): DictView & { isLoading: boolean } {
  return useDict('job_states');
}
