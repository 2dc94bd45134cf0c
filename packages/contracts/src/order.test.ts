import { describe, expect, it } from 'vitest';
import { formatCardHours, formatYuan } from './order';

describe('money and compute on the wire', () => {
  it('formatYuan: integer 分 → 元 with two decimals, exact', () => {
    expect([0, 1, 10, 99, 100, 12800, 1080000, 123456789].map(formatYuan)).toEqual(['0.00', '0.01', '0.10', '0.99', '1.00', '128.00', '10800.00', '1234567.89']);
  });

  it('formatCardHours: card-seconds → 卡时, rounded down', () => {
    expect([0, 35, 36, 3600, 36000 * 100].map(formatCardHours)).toEqual(['0.00', '0.00', '0.01', '1.00', '1000.00']);
  });
});
