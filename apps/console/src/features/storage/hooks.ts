import { teamOfSpace, type SubCenter } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { queryKeys } from '../../app/query-keys';
import { listTeams } from '../team/api';
import { createFileApi, fetchSubCenters, type FileApi } from './api';

const CENTER_STORAGE_KEY = 'suanli.storage.center';

export function recallCenter(): string | null {
  try {
    return window.localStorage.getItem(CENTER_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function rememberCenter(id: string): void {
  try {
    window.localStorage.setItem(CENTER_STORAGE_KEY, id);
  } catch {
    // Storage disabled: the choice just is not remembered.
  }
}

/** The URL's center if known, else the remembered one, else the first online center, else the first. */
export function pickCenter(centers: SubCenter[], requested: string | null, remembered: string | null): SubCenter | undefined {
  return (
    centers.find((c) => c.id === requested) ??
    centers.find((c) => c.id === remembered) ??
    centers.find((c) => c.status === 'online') ??
    centers[0]
  );
}

export function useSubCenters() {
  return useQuery({ queryKey: queryKeys.storage.centers, queryFn: fetchSubCenters, staleTime: 5 * 60_000 });
}

/** The file calls of a center, in the user's home or (`space` = `team:<id>`) in a team's folder there. */
export function useFileApi(center: SubCenter | undefined, space?: string) {
  const baseUrl = center?.fileServiceUrl;
  return useMemo(() => (baseUrl ? createFileApi(baseUrl, undefined, space) : undefined), [baseUrl, space]);
}

/**
 * What the storage cache is keyed by: the center for the home, the center and the space for a team's folder
 * (the same paths name different files there), so a change in one never shows in the other.
 */
export const cacheScope = (centerId: string, space?: string) => (space ? `${centerId}~${space}` : centerId);

/** The `space` URL parameter: a team's folder (`team:<id>`), or undefined for the home (anything else too). */
export const spaceParam = (raw: string | null): string | undefined => (raw && teamOfSpace(raw) ? raw : undefined);

/** The user's teams (团队管理's query, refreshed by `team.changed`): the spaces 文件管理 offers besides the home. */
export function useMyTeams() {
  return useQuery({ queryKey: queryKeys.team.list, queryFn: listTeams, staleTime: 60_000 });
}

/**
 * The file operations of one center as mutations: each one, once it succeeded, invalidates everything
 * cached for that center (listings, usage, details), like the message page does after marking messages.
 * Failures were already shown by the transport; `mutateAsync` still rejects so a dialog stays open.
 */
export function useFileMutations(api: FileApi, centerId: string) {
  const queryClient = useQueryClient();
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: queryKeys.storage.center(centerId) });
  return {
    mkdir: useMutation({ mutationFn: (v: { parentPath: string; name: string }) => api.mkdir(v.parentPath, v.name), onSuccess }),
    rename: useMutation({ mutationFn: (v: { path: string; newName: string }) => api.rename(v.path, v.newName), onSuccess }),
    move: useMutation({ mutationFn: (v: { paths: string[]; targetDir: string }) => api.move(v.paths, v.targetDir), onSuccess }),
    copy: useMutation({ mutationFn: (v: { paths: string[]; targetDir: string }) => api.copy(v.paths, v.targetDir), onSuccess }),
    remove: useMutation({ mutationFn: (paths: string[]) => api.remove(paths), onSuccess }),
  };
}

const pendingRefresh = new Map<string, ReturnType<typeof setTimeout>>();
const lastRefresh = new Map<string, number>();

/** Test helper: drop pending refreshes and their one-per-second history (they outlive a file's page). */
export function resetUploadRefreshes(): void {
  for (const timer of pendingRefresh.values()) clearTimeout(timer);
  pendingRefresh.clear();
  lastRefresh.clear();
}

/**
 * Called by the upload runner for each file that landed in a center: invalidates that center's cache. A
 * folder upload finishes files in a burst, so refreshes are coalesced (at most one per second per center,
 * the last one always happens).
 */
export function refreshCenterAfterUpload(queryClient: QueryClient, centerId: string): void {
  if (pendingRefresh.has(centerId)) return;
  const wait = Math.max(0, 1000 - (Date.now() - (lastRefresh.get(centerId) ?? 0)));
  pendingRefresh.set(
    centerId,
    setTimeout(() => {
      pendingRefresh.delete(centerId);
      lastRefresh.set(centerId, Date.now());
      void queryClient.invalidateQueries({ queryKey: queryKeys.storage.center(centerId) });
    }, wait),
  );
}
