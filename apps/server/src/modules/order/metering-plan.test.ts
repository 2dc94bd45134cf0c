import { describe, expect, it } from 'vitest';
import { billedCards, dayOf, elapsedSeconds, planDraw, planReturn, splitByDay, type PlanBucket } from './metering-plan';

/** 2025-03-01 00:00:00 in UTC+8. */
const MIDNIGHT = Date.UTC(2025, 1, 28, 16, 0, 0);

describe('metering arithmetic (ADR 0015)', () => {
  it('the rounding rule: elapsed time floored to whole seconds, never negative; CPU-only jobs pay a card per node', () => {
    expect(elapsedSeconds(1_000, 1_000)).toBe(0);
    expect(elapsedSeconds(1_000, 1_999)).toBe(0);
    expect(elapsedSeconds(1_000, 2_000)).toBe(1);
    expect(elapsedSeconds(1_000, 62_999)).toBe(61);
    // A gateway clock behind the scheduler's start: nothing yet, not a negative draw.
    expect(elapsedSeconds(5_000, 1_000)).toBe(0);
    expect([billedCards(8, 1), billedCards(2, 4), billedCards(0, 1), billedCards(0, 3)]).toEqual([8, 8, 1, 3]);
  });

  it('days are UTC+8 days; a span is cut where one ends', () => {
    expect(dayOf(MIDNIGHT - 1)).toBe('2025-02-28');
    expect(dayOf(MIDNIGHT)).toBe('2025-03-01');
    // Started 10.5 s before midnight: seconds 0–10 begin on the 28th, second 11 (at +0.5 s) on the 1st.
    const start = MIDNIGHT - 10_500;
    expect(splitByDay(start, 0, 20)).toEqual([
      { day: '2025-02-28', from: 0, to: 11 },
      { day: '2025-03-01', from: 11, to: 20 },
    ]);
    expect(splitByDay(start, 12, 20)).toEqual([{ day: '2025-03-01', from: 12, to: 20 }]);
    expect(splitByDay(start, 5, 5)).toEqual([]);
    // Three days in one draw (a gateway down for two days).
    expect(splitByDay(MIDNIGHT, 0, 2 * 86_400 + 1).map((s) => [s.day, s.to - s.from])).toEqual([
      ['2025-03-01', 86_400],
      ['2025-03-02', 86_400],
      ['2025-03-03', 1],
    ]);
  });

  it('draws from buckets in the order given, splitting across them; what none covers is the shortfall', () => {
    const buckets: PlanBucket[] = [
      { id: 'soon', expireTime: 1, remaining: 100 },
      { id: 'later', expireTime: 2, remaining: 1_000 },
    ];
    // 8 cards × 60 s = 480: 100 from the bucket that expires first, 380 from the next.
    const plan = planDraw(MIDNIGHT, 0, 60, 8, buckets);
    expect(plan.shortfall).toBe(0);
    expect(plan.draws).toEqual([
      { bucketId: 'soon', day: '2025-03-01', cardSeconds: 100, from: 0, to: 13 },
      { bucketId: 'later', day: '2025-03-01', cardSeconds: 380, from: 12, to: 60 },
    ]);
    expect(buckets.map((b) => b.remaining)).toEqual([0, 620]);
    // Next period: the first bucket is empty, the second runs out, 480 − 620… then 340 short.
    const next = planDraw(MIDNIGHT, 60, 180, 8, buckets);
    expect(next.draws).toEqual([{ bucketId: 'later', day: '2025-03-01', cardSeconds: 620, from: 60, to: 138 }]);
    expect(next.shortfall).toBe(8 * 120 - 620);
  });

  it('a return forgives the shortfall first, then takes back from the newest records', () => {
    const records = [
      { id: 'r2', bucketId: 'b2', cardSeconds: 30 },
      { id: 'r1', bucketId: 'b1', cardSeconds: 100 },
    ];
    expect(planReturn(50, 0, records)).toEqual({ forgiven: 0, returns: [{ id: 'r2', bucketId: 'b2', cardSeconds: 30 }, { id: 'r1', bucketId: 'b1', cardSeconds: 20 }] });
    expect(planReturn(50, 40, records)).toEqual({ forgiven: 40, returns: [{ id: 'r2', bucketId: 'b2', cardSeconds: 10 }] });
    expect(planReturn(10, 40, records)).toEqual({ forgiven: 10, returns: [] });
  });
});
