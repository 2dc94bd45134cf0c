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
