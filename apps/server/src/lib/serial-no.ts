/**
 * Numbers people quote (工单 `GD…`, orders `DD…`): a letter prefix, the platform's calendar day yyyyMMdd
 * (China Standard Time, UTC+8, no daylight saving) and a 4-digit count within that day.
 */
const CST_OFFSET_MS = 8 * 3600_000;

/** `<letters><yyyyMMdd>` of the day `now` falls on in China Standard Time. */
export function serialPrefix(letters: string, now: number): string {
  return `${letters}${new Date(now + CST_OFFSET_MS).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * The number after `last` (the day's highest so far, if any). Past 9999 in one day it grows a digit rather
 * than failing; nothing sorts on its length. The caller's unique index settles two requests taking one.
 */
export function nextSerial(prefix: string, last: string | undefined): string {
  const n = last ? Number(last.slice(prefix.length)) + 1 : 1;
  return `${prefix}${String(n).padStart(4, '0')}`;
}
