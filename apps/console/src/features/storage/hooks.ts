import type { SubCenter } from '@suanli/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { useUploadStore } from '../../shared/upload';
import { createFileApi, fetchSubCenters, type ListParams } from './api';

/** Every key roots at ['storage', centerId] so one invalidation refreshes a center's listing and usage. */
export const storageKeys = {
  centers: ['storage', 'sub-centers'] as const,
  center: (centerId: string) => ['storage', centerId] as const,
  list: (centerId: string, params: ListParams) => ['storage', centerId, 'list', params] as const,
  usage: (centerId: string) => ['storage', centerId, 'usage'] as const,
  entry: (centerId: string, path: string) => ['storage', centerId, 'entry', path] as const,
  preview: (centerId: string, path: string, version: number) => ['storage', centerId, 'preview', path, version] as const,
};

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
  return useQuery({ queryKey: storageKeys.centers, queryFn: fetchSubCenters, staleTime: 5 * 60_000 });
}

export function useFileApi(center: SubCenter | undefined) {
  const baseUrl = center?.fileServiceUrl;
  return useMemo(() => (baseUrl ? createFileApi(baseUrl) : undefined), [baseUrl]);
}

/**
 * Refreshes a center's listing and usage as uploads into it finish. A folder upload finishes files in a
 * burst, so refreshes are coalesced (at most one per second, the last one always happens).
 */
export function useRefreshOnUpload(centerId: string | undefined) {
  const queryClient = useQueryClient();
  const completed = useUploadStore((s) => s.completed);
  const lastRun = useRef(0);
  useEffect(() => {
    if (!centerId || completed === 0) return;
    if (useUploadStore.getState().lastCompleted?.centerId !== centerId) return;
    const wait = Math.max(0, 1000 - (Date.now() - lastRun.current));
    const timer = setTimeout(() => {
      lastRun.current = Date.now();
      void queryClient.invalidateQueries({ queryKey: storageKeys.center(centerId) });
    }, wait);
    return () => clearTimeout(timer);
  }, [completed, centerId, queryClient]);
}
