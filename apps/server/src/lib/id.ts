import { randomBytes } from 'node:crypto';

let last = 0;
let seq = 0;

/** Random bytes drawn from the CSPRNG 4 KiB at a time: one call per id cost ~4 µs (a syscall each), which
 * dominated creating ids for a batch of rows (bench/ws: 10k at once). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function random40Bits(): number {
  if (poolOffset + 5 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const n = pool.readUIntBE(poolOffset, 5);
  poolOffset += 5;
  return n;
}

/**
 * Time-ordered string ids: 9 base-36 chars of milliseconds, 3 of a per-ms sequence, 8 random. Sorting by
 * id sorts by creation, which keyset paging relies on; the random tail keeps ids unguessable enough that
 * enumeration is pointless (ownership is still checked everywhere).
 */
export function newId(now = Date.now()): string {
  // Never backwards within a process: ids made from different clocks (a test's frozen clock and Date.now, a
  // clock stepping back) still sort in creation order. Going back used to restart the sequence, and ids of
  // the same millisecond then sorted by their random tail (newest-first lists came out of order).
  if (now > last) {
    last = now;
    seq = 0;
  } else seq++;
  const rand = random40Bits().toString(36).padStart(8, '0').slice(-8);
  return last.toString(36).padStart(9, '0') + seq.toString(36).padStart(3, '0') + rand;
}
