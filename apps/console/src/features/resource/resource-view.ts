import type { CenterState, MyRunningTask } from '@suanli/contracts';

export const STATE_LABEL: Record<CenterState, { text: string; status: 'success' | 'warning' | 'error' }> = {
  online: { text: '在线', status: 'success' },
  maintenance: { text: '维护中', status: 'warning' },
  offline: { text: '离线', status: 'error' },
};

/** The overview and charts re-read the stored samples this often (the server samples every 30 s). */
export const RESOURCE_REFRESH_MS = 15_000;

/** Where a running task's detail page is, by its family. */
export function taskDetailPath(t: MyRunningTask) {
  return t.kind === 'slurm' ? `/slurm-task/detail/${t.type}/${t.id}` : `/training/detail/${t.type}/${t.id}`;
}

export const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);
