import { describe, expect, it } from 'vitest';
import { formatDuration, formatTime } from './time';

describe('time formats', () => {
  it('writes spans of time in Chinese, largest unit first', () => {
    expect(formatDuration(4_000)).toBe('4秒');
    expect(formatDuration(61_000)).toBe('1分1秒');
    expect(formatDuration(2 * 3600_000 + 3 * 60_000 + 4_000)).toBe('2小时3分4秒');
    expect(formatDuration(26 * 3600_000 + 60_000)).toBe('1天2小时1分');
  });

  it('writes a missing moment as a dash', () => {
    expect(formatTime(null)).toBe('—');
    expect(formatTime(new Date(2024, 4, 1, 8, 30).getTime())).toBe('2024-05-01 08:30:00');
  });
});
