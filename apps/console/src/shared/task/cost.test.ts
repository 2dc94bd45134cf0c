import type { CompPowerBucket } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { cardHoursOf, estimateCost, hundredthsOf, matchingHundredths, maxHundredths } from './cost';

const bucket = (subCenterId: string, cardTypeId: string, remaining: string): CompPowerBucket => ({
  id: `${subCenterId}-${cardTypeId}-${remaining}`,
  subCenterId,
  subCenterName: subCenterId,
  cardTypeId,
  cardTypeName: cardTypeId,
  granted: remaining,
  remaining,
  expireTime: 1,
  source: 'order',
  standardFactor: 1,
  standardRemaining: remaining,
});

describe('预计最多消耗', () => {
  it('is cards × nodes × the maximum run time in 卡时, rounded up to the hundredth', () => {
    expect(cardHoursOf(maxHundredths(8, 1, 120))).toBe('16.00');
    expect(cardHoursOf(maxHundredths(4, 2, 150))).toBe('20.00');
    // 1 card for 1 minute is 0.0166… 卡时: a maximum is rounded up.
    expect(cardHoursOf(maxHundredths(1, 1, 1))).toBe('0.02');
    expect(cardHoursOf(maxHundredths(0, 1, 60))).toBe('0.00');
    // 64 cards × 64 nodes × 7 days stays exact.
    expect(cardHoursOf(maxHundredths(64, 64, 7 * 24 * 60))).toBe('688128.00');
  });

  it('reads and writes the API\'s 卡时 strings exactly', () => {
    expect(hundredthsOf('12.50')).toBe(1250);
    expect(hundredthsOf('0.07')).toBe(7);
    expect(hundredthsOf('3')).toBe(300);
    expect(cardHoursOf(1250)).toBe('12.50');
    expect(cardHoursOf(5)).toBe('0.05');
  });

  it('counts only the buckets of the same center and card type', () => {
    const items = [bucket('sz', 'a100', '10.25'), bucket('sz', 'a100', '2.50'), bucket('sz', 'cpu', '99.00'), bucket('gz', 'a100', '50.00')];
    expect(matchingHundredths(items, 'sz', 'a100')).toBe(1275);
    expect(estimateCost({ cardNum: 2, nodeNum: 1, minutes: 180, centerId: 'sz', cardTypeId: 'a100', items })).toEqual({ need: '6.00', have: '12.75', after: '6.75', short: null });
    expect(estimateCost({ cardNum: 8, nodeNum: 1, minutes: 120, centerId: 'sz', cardTypeId: 'a100', items })).toEqual({ need: '16.00', have: '12.75', after: null, short: '3.25' });
    // Exactly enough covers.
    expect(estimateCost({ cardNum: 1, nodeNum: 1, minutes: 765, centerId: 'sz', cardTypeId: 'a100', items }).after).toBe('0.00');
    expect(estimateCost({ cardNum: 1, nodeNum: 1, minutes: 60, centerId: 'sz', cardTypeId: 'ascend', items })).toEqual({ need: '1.00', have: '0.00', after: null, short: '1.00' });
  });

  it('without a center (智能调度 still choosing) answers the need alone', () => {
    expect(estimateCost({ cardNum: 1, nodeNum: 1, minutes: 60, centerId: undefined, cardTypeId: 'a100', items: [bucket('sz', 'a100', '1.00')] })).toEqual({ need: '1.00', have: null, after: null, short: null });
  });
});
