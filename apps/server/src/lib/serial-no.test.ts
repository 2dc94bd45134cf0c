import { describe, expect, it } from 'vitest';
import { nextSerial, serialPrefix } from './serial-no';

describe('serial numbers', () => {
  it('take the day in China Standard Time', () => {
    expect(serialPrefix('GD', Date.UTC(2026, 10, 26, 15, 59))).toBe('GD20261126');
    expect(serialPrefix('DD', Date.UTC(2026, 10, 26, 16, 0))).toBe('DD20261127');
  });
  it('count up within the day and grow a digit past 9999', () => {
    expect(nextSerial('GD20261126', undefined)).toBe('GD202611260001');
    expect(nextSerial('GD20261126', 'GD202611260041')).toBe('GD202611260042');
    expect(nextSerial('GD20261126', 'GD202611269999')).toBe('GD2026112610000');
  });
});
