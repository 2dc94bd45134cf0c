import type { CenterState, MyRunningTask } from '@suanli/contracts';

export const STATE_LABEL: Record<CenterState, { text: string; status: 'success' | 'warning' | 'error' }> = {
  online: { text: '在线', status: 'success' },
  maintenance: { text: '维护中', status: 'warning' },
  offline: { text: '离线', status: 'error' },
};

/**
 * The overview and charts re-read when a sample is stored (`resource.sampled` on the socket) and on task
 * events; this timer is the fallback for what sends no event — a center whose samples stopped turns 离线
 * only as time passes — and for a socket that is down.
 */
export const RESOURCE_REFRESH_MS = 60_000;

/** Where a running task's detail page is, by its family. */
export function taskDetailPath(t: MyRunningTask) {
  return t.kind === 'slurm' ? `/slurm-task/detail/${t.type}/${t.id}` : `/training/detail/${t.type}/${t.id}`;
}

export const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);
