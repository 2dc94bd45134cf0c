import { randomBytes } from 'node:crypto';

let last = 0;
let seq = 0;

/**
 * Time-ordered string ids: 9 base-36 chars of milliseconds, 3 of a per-ms sequence, 8 random. Sorting by
 * id sorts by creation, which keyset paging relies on; the random tail keeps ids unguessable enough that
 * enumeration is pointless (ownership is still checked everywhere).
 */
export function newId(now = Date.now()): string {
  if (now === last) seq++;
  else {
    last = now;
    seq = 0;
  }
  const rand = randomBytes(5).readUIntBE(0, 5).toString(36).padStart(8, '0').slice(-8);
  return now.toString(36).padStart(9, '0') + seq.toString(36).padStart(3, '0') + rand;
}
