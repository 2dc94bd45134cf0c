/**
 * The interrupted uploads of the caller (see interrupted-uploads.tsx for what the panel does with them). Apart
 * from the list so that the header's task button can count them without loading the panel (docs/performance.md).
 */
import type { StagedUpload, SubCenter } from '@suanli/contracts';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { queryKeys } from '../../app/query-keys';
import { listStaged } from './staged';
import { isActive, useUploadStore, type UploadTask } from './store';

/** A center whose file service is asked: only ones where the caller has a cluster account (asking would create one). */
export type UploadCenter = Pick<SubCenter, 'id' | 'name' | 'fileServiceUrl'>;

export interface InterruptedUpload extends StagedUpload {
  center: UploadCenter;
}

export interface InterruptedUploads {
  items: InterruptedUpload[];
  /** Centers whose file service did not answer. */
  unreachable: UploadCenter[];
}

/** The upload task of this browser that is the same upload (running, failed or done here): listed there, not twice. */
const sameUpload = (u: InterruptedUpload, t: UploadTask) => t.centerId === u.center.id && t.path === u.path && t.name === u.filename && t.size === u.totalSize;

/**
 * The interrupted uploads of the caller on `centers`, minus the ones this browser's upload list already shows.
 * Asked once on load and again whenever an upload of this browser ends (its staging is then gone or grew).
 */
export function useInterruptedUploads(centers: UploadCenter[]): InterruptedUploads {
  const queryClient = useQueryClient();
  const results = useQueries({
    queries: centers.map((c) => ({ queryKey: queryKeys.storage.staged(c.id), queryFn: () => listStaged(c.fileServiceUrl), staleTime: 0 })),
  });
  const tasks = useUploadStore((s) => s.tasks);
  const settled = tasks.filter((t) => !isActive(t)).length;
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    for (const c of centers) void queryClient.invalidateQueries({ queryKey: queryKeys.storage.staged(c.id) });
    // Only a change in the number of ended uploads matters, not the list of centers.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled, queryClient]);

  return useMemo(() => {
    const items: InterruptedUpload[] = [];
    const unreachable: UploadCenter[] = [];
    results.forEach((r, i) => {
      const center = centers[i];
      if (r.isError) unreachable.push(center);
      for (const u of Array.isArray(r.data) ? r.data : []) {
        const item = { ...u, center };
        if (!tasks.some((t) => sameUpload(item, t))) items.push(item);
      }
    });
    return { items, unreachable };
  }, [results, centers, tasks]);
}
