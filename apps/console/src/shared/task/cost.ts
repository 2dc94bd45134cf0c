import type { CompPowerBucket } from '@suanli/contracts';

/**
 * What a task may cost at most before it is submitted (issue 19): cards × nodes × the maximum run time, in
 * 卡时, against what remains of the matching balance — the buckets of the same center and card type, the only
 * ones the task draws from. Amounts are hundredths of a 卡时 (integers), as the API's `12.50` strings are.
 */
export interface CostEstimate {
  /** 卡时 the task draws at most (rounded up to the hundredth: it is a maximum). */
  need: string;
  /** What remains of the matching buckets; null while the center is not known (智能调度 still choosing). */
  have: string | null;
  /** `have` − `need` when it covers, else null. */
  after: string | null;
  /** How much is missing when it does not cover, else null. */
  short: string | null;
}

/** `12.50` → 1250. */
export function hundredthsOf(cardHours: string): number {
  const [whole, frac = ''] = cardHours.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0').slice(0, 2));
}

/** 1250 → `12.50`. */
export function cardHoursOf(hundredths: number): string {
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}

/** Hundredths of a 卡时 a task of these resources draws at most, rounded up: cards × nodes × minutes / 60. */
export function maxHundredths(cardNum: number, nodeNum: number, minutes: number): number {
  // cards × nodes × minutes × 100 / 60, in integers before the one division.
  return Math.ceil((cardNum * nodeNum * minutes * 100) / 60);
}

/** The matching balance: the remaining 卡时 of the caller's buckets on this center for this card type. */
export function matchingHundredths(items: readonly Pick<CompPowerBucket, 'subCenterId' | 'cardTypeId' | 'remaining'>[], centerId: string, cardTypeId: string): number {
  return items.filter((b) => b.subCenterId === centerId && b.cardTypeId === cardTypeId).reduce((sum, b) => sum + hundredthsOf(b.remaining), 0);
}

export function estimateCost(input: { cardNum: number; nodeNum: number; minutes: number; centerId: string | undefined; cardTypeId: string; items: readonly CompPowerBucket[] }): CostEstimate {
  const need = maxHundredths(input.cardNum, input.nodeNum, input.minutes);
  if (!input.centerId) return { need: cardHoursOf(need), have: null, after: null, short: null };
  const have = matchingHundredths(input.items, input.centerId, input.cardTypeId);
  return {
    need: cardHoursOf(need),
    have: cardHoursOf(have),
    after: have >= need ? cardHoursOf(have - need) : null,
    short: have >= need ? null : cardHoursOf(need - have),
  };
}
