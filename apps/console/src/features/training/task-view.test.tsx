import { describe, expect, it } from 'vitest';
import { toSeries } from './components/metrics-chart';
import { cardsText, formatDuration, formatMinutes, runningTime } from './task-view';

describe('training view helpers', () => {
  it('formats running times and durations in Chinese', () => {
    expect(formatDuration(4_000)).toBe('4秒');
    expect(formatDuration(61_000)).toBe('1分1秒');
    expect(formatDuration(2 * 3600_000 + 3 * 60_000 + 4_000)).toBe('2小时3分4秒');
    expect(formatDuration(26 * 3600_000 + 60_000)).toBe('1天2小时1分');
    expect(formatMinutes(90)).toBe('1小时30分钟');
    expect(formatMinutes(120)).toBe('2小时');
    expect(formatMinutes(45)).toBe('45分钟');
    expect(runningTime({ startTime: null, endTime: null }, 10)).toBe('—');
    expect(runningTime({ startTime: 1_000, endTime: null }, 11_000)).toBe('10秒');
  });

  it('names the card request, with nodes for distributed tasks', () => {
    const t = { cardTypeName: '昇腾 910B', cardTypeId: 'ascend-910b', cardNum: 8, nodeNum: 1, type: 'train' };
    expect(cardsText(t)).toBe('昇腾 910B × 8 卡');
    expect(cardsText({ ...t, type: 'distributed', nodeNum: 4 })).toBe('昇腾 910B × 8 卡 × 4 节点');
  });

  it('turns metric lines into one series per scalar against step', () => {
    const series = toSeries([{ step: 10, loss: 0.9 }, { step: 20, loss: 0.5, acc: 0.8 }, { loss: 0.4 }]);
    expect(series).toEqual([
      { name: 'loss', data: [[10, 0.9], [20, 0.5], [2, 0.4]] },
      { name: 'acc', data: [[20, 0.8]] },
    ]);
  });
});
