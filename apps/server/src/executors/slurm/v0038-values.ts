/** How v0.0.38 writes the values its controller (v0038.ts) and accounting (v0038-accounting.ts) shapes share. */

/** Unix seconds, or `null` for unset (0 or absent). */
export const secs = (v: unknown): number | null => (typeof v === 'number' && v > 0 ? v : null);

/** `job_state` may carry flags after the base state in some builds (`CANCELLED by 0`): the first word. */
export const baseState = (s: unknown): string => String(s ?? '').trim().split(/[\s,]+/)[0].toUpperCase();
