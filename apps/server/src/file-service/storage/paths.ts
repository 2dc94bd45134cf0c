import { illegalPath } from './beneath';
import { TEMP_PREFIX } from './account-fs';

const MAX_SEGMENT_BYTES = 255;

/** C0 controls (CR, LF, TAB, ESC …), DEL and C1 controls: never part of a name a person types. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * A user-visible path split into its segments. `/` (and '') is the home; a leading `/` is optional and
 * never means the host's root. `..`, NUL and backslashes are refused outright rather than normalised away,
 * so a client that sends them learns it is wrong instead of landing somewhere unexpected. Segments are
 * looked up as given (a name a job wrote in another Unicode form stays reachable); new names go through
 * `checkName`.
 */
export function parseUserPath(p: string): string[] {
  if (p.includes('\0')) throw illegalPath('路径中不能包含空字符');
  if (p.includes('\\')) throw illegalPath('路径中不能包含反斜杠');
  const segments = p.split('/').filter((s) => s !== '' && s !== '.');
  for (const s of segments) {
    if (s === '..') throw illegalPath(`路径中不能包含 ..：${p}`);
    if (Buffer.byteLength(s) > MAX_SEGMENT_BYTES) throw illegalPath('名称过长');
  }
  return segments;
}

/**
 * A new name (folder, rename target, uploaded file, folder-upload path segment): one segment, nothing that
 * walks, no control characters; returned in Unicode NFC, so the NFC and NFD spellings of one name (macOS
 * sends NFD) are one name and the second is a clash, not a look-alike twin.
 */
export function checkName(name: string): string {
  if (name.includes('/') || name.includes('\\') || name.includes('\0')) throw illegalPath(`名称不能包含 / \\ 或空字符：${name}`);
  if (CONTROL.test(name)) throw illegalPath('名称不能包含换行、制表符等控制字符');
  const nfc = name.normalize('NFC');
  if (nfc === '.' || nfc === '..' || nfc.trim() === '') throw illegalPath(`名称不合法：${nfc}`);
  if (Buffer.byteLength(nfc) > MAX_SEGMENT_BYTES) throw illegalPath('名称过长');
  if (nfc.startsWith(TEMP_PREFIX)) throw illegalPath(`名称不能以 ${TEMP_PREFIX} 开头`);
  return nfc;
}

/** A path whose every segment is a new name (folder uploads create the folders on the way): NFC, no controls. */
export function parseNewPath(p: string): string[] {
  return parseUserPath(p).map(checkName);
}
