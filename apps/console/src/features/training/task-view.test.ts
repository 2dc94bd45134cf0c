import { describe, expect, it } from 'vitest';
import { toSeries } from './components/metrics-chart';
import { cardsText } from './task-view';

describe('training view helpers', () => {
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
