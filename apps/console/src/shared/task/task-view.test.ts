import { describe, expect, it } from 'vitest';
import { formatMinutes, runningTime } from './task-view';

describe('task view helpers', () => {
  it('writes maximum run times and running times in Chinese', () => {
    expect(formatMinutes(90)).toBe('1小时30分钟');
    expect(formatMinutes(120)).toBe('2小时');
    expect(formatMinutes(45)).toBe('45分钟');
    expect(runningTime({ startTime: null, endTime: null }, 10)).toBe('—');
    expect(runningTime({ startTime: 1_000, endTime: null }, 11_000)).toBe('10秒');
    expect(runningTime({ startTime: 1_000, endTime: 61_000 }, 999_000)).toBe('1分0秒');
  });
});
