/**
 * The arithmetic of metering (ADR 0015), pure: no clock, no database. The service loads meters and buckets,
 * plans each task's draw here, and writes the plan in one transaction.
 *
 * Rounding: a task's accounted runtime is its elapsed time since the scheduler's start, floored to whole
 * seconds; it draws billedCards × seconds card-seconds, whole. An interim draw meters up to `now`; the final
 * one meters up to the scheduler's end time exactly, returning what interim draws took beyond it (a clock
 * ahead of the scheduler's, a task that ended between a poll and a pass), so a task's draws always add up
 * to billedCards × floor((end − start) / 1000 ms).
 */

/** Cards a task pays for: a CPU-only job (0 cards) pays one card per node — no route runs free. */
export function billedCards(cardNum: number, nodeNum: number): number {
  return Math.max(1, cardNum) * Math.max(1, nodeNum);
}

/** Whole seconds from `startMs` to `atMs` (never negative). */
export function elapsedSeconds(startMs: number, atMs: number): number {
  return Math.max(0, Math.floor((atMs - startMs) / 1000));
}

const UTC8_MS = 8 * 3600_000;
const DAY_MS = 24 * 3600_000;

/** The day (UTC+8) of an instant, `yyyy-MM-dd`: the day consume records and charts count it in. */
export function dayOf(ms: number): string {
  return new Date(ms + UTC8_MS).toISOString().slice(0, 10);
}

/** The first instant of the UTC+8 day after the one `ms` is in. */
function nextDayStart(ms: number): number {
  return Math.floor((ms + UTC8_MS) / DAY_MS) * DAY_MS + DAY_MS - UTC8_MS;
}

export interface DaySpan {
  day: string;
  /** Elapsed seconds since the task's start: [from, to). */
  from: number;
  to: number;
}

/**
 * Elapsed seconds [from, to) of a task started at `startMs`, cut where a UTC+8 day ends. Second `i` covers
 * [start + i s, start + (i + 1) s) and belongs to the day its beginning is in.
 */
export function splitByDay(startMs: number, from: number, to: number): DaySpan[] {
  const out: DaySpan[] = [];
  let a = from;
  while (a < to) {
    const day = dayOf(startMs + a * 1000);
    // The first second that begins in the next day.
    const cut = Math.ceil((nextDayStart(startMs + a * 1000) - startMs) / 1000);
    const b = Math.min(to, Math.max(cut, a + 1));
    out.push({ day, from: a, to: b });
    a = b;
  }
  return out;
}

/** A bucket as planning sees it; `remaining` is lowered as draws are planned. */
export interface PlanBucket {
  id: string;
  expireTime: number;
  remaining: number;
}

/** Earliest expiry first; the id settles a tie so every replica picks the same bucket. */
export function drawOrder(a: PlanBucket, b: PlanBucket): number {
  return a.expireTime - b.expireTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export interface Draw {
  bucketId: string;
  day: string;
  cardSeconds: number;
  /** The elapsed seconds this bucket paid for (a second shared by two buckets is in both ranges). */
  from: number;
  to: number;
}

export interface TaskPlan {
  draws: Draw[];
  /** Card-seconds no bucket could cover. */
  shortfall: number;
}

/**
 * The draw of elapsed seconds [from, to) at `cards` card-seconds per second, day by day, from `buckets`
 * (already in draw order; their `remaining` is lowered). What they cannot cover is the shortfall.
 */
export function planDraw(startMs: number, from: number, to: number, cards: number, buckets: PlanBucket[]): TaskPlan {
  const draws: Draw[] = [];
  let shortfall = 0;
  for (const span of splitByDay(startMs, from, to)) {
    let need = cards * (span.to - span.from);
    // Seconds of the span already paid for, in card-seconds from the span's start.
    let paid = 0;
    for (const b of buckets) {
      if (need === 0) break;
      if (b.remaining <= 0) continue;
      const take = Math.min(b.remaining, need);
      b.remaining -= take;
      need -= take;
      const first = span.from + Math.floor(paid / cards);
      paid += take;
      draws.push({ bucketId: b.id, day: span.day, cardSeconds: take, from: first, to: span.from + Math.ceil(paid / cards) });
    }
    shortfall += need;
  }
  return { draws, shortfall };
}

/** A consume record as returns see it (newest first), and what to take back from it. */
export interface Refundable {
  id: string;
  bucketId: string;
  cardSeconds: number;
}

/**
 * What a final draw gives back when interim draws metered beyond the task's end: the shortfall is forgiven
 * first (it was never drawn), then card-seconds go back to the records (newest first) and their buckets.
 */
export function planReturn(excess: number, shortfall: number, records: Refundable[]): { forgiven: number; returns: { id: string; bucketId: string; cardSeconds: number }[] } {
  const forgiven = Math.min(excess, shortfall);
  let left = excess - forgiven;
  const returns: { id: string; bucketId: string; cardSeconds: number }[] = [];
  for (const r of records) {
    if (left <= 0) break;
    const back = Math.min(left, r.cardSeconds);
    if (back <= 0) continue;
    returns.push({ id: r.id, bucketId: r.bucketId, cardSeconds: back });
    left -= back;
  }
  return { forgiven, returns };
}
