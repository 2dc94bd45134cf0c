import { dayjs } from './dayjs';

/** A moment as every page shows it: `2024-05-01 08:30:00`, `—` when there is none. */
export const formatTime = (v: number | null | undefined) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—');

/** A span of time: 1天2小时3分 / 2小时3分4秒 / 4秒. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d > 0) return `${d}天${h}小时${m}分`;
  if (h > 0) return `${h}小时${m}分${s}秒`;
  if (m > 0) return `${m}分${s}秒`;
  return `${s}秒`;
}
