import fs from 'node:fs/promises';
import path from 'node:path';
import { isMissing } from './paths';

/** Bytes of regular files under `dir`, never following symlinks (a link counts as nothing). */
export async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) continue;
      throw e;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) {
        try {
          total += (await fs.lstat(p)).size;
        } catch (err) {
          if (!isMissing(err)) throw err;
        }
      }
    }
  }
  return total;
}

/**
 * Per-account usage for the quota: the home's bytes plus the chunks staged for it, walked at most every
 * `ttlMs` (jobs also write into homes, so a counter alone would drift), adjusted in between by what this
 * service itself adds or removes, plus the bytes currently streaming in (so three parallel chunks cannot
 * each see the same free space).
 */
export class UsageMeter {
  private readonly cache = new Map<string, { bytes: number; at: number }>();
  private readonly inflight = new Map<string, number>();

  constructor(
    private readonly clock: () => number,
    private readonly ttlMs = 10_000,
  ) {}

  /** Stored bytes (home + staged chunks) as `measure` walks them, without in-flight streams. */
  async stored(account: string, measure: () => Promise<number>): Promise<number> {
    const hit = this.cache.get(account);
    if (hit && this.clock() - hit.at < this.ttlMs) return hit.bytes;
    const bytes = await measure();
    this.cache.set(account, { bytes, at: this.clock() });
    return bytes;
  }

  /** Record a change this service made, so the next check sees it before the next walk. */
  add(account: string, delta: number) {
    const hit = this.cache.get(account);
    if (hit) hit.bytes = Math.max(0, hit.bytes + delta);
  }

  invalidate(account: string) {
    this.cache.delete(account);
  }

  inflightOf(account: string) {
    return this.inflight.get(account) ?? 0;
  }

  reserve(account: string, n: number) {
    this.inflight.set(account, this.inflightOf(account) + n);
  }

  release(account: string, n: number) {
    const left = this.inflightOf(account) - n;
    if (left > 0) this.inflight.set(account, left);
    else this.inflight.delete(account);
  }
}
