import { TASK_NAME_MAX, type SubCenterDetail } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { durationOf, nameWithSuffix, partitionBounds, taskPayload } from './task-form';

const center = (partitions: { cardTypeId: string; cardsPerNode: number; nodes: number }[]) =>
  ({ partitions: partitions.map((p) => ({ name: p.cardTypeId, cpusPerCard: 1, memoryGBPerCard: 1, ...p })) }) as SubCenterDetail;

describe('task form helpers', () => {
  it('bounds cards and nodes by the largest partition of the card type, at most 64', () => {
    const a = center([{ cardTypeId: 'a100', cardsPerNode: 8, nodes: 4 }]);
    const b = center([{ cardTypeId: 'a100', cardsPerNode: 4, nodes: 16 }, { cardTypeId: 'cpu', cardsPerNode: 128, nodes: 2 }]);
    expect(partitionBounds([a, b], 'a100')).toEqual({ cards: 8, nodes: 16 });
    expect(partitionBounds([a, b], 'cpu')).toEqual({ cards: 64, nodes: 2 });
    // Nothing known yet (details loading, no card type): the general limit.
    expect(partitionBounds([undefined], undefined)).toEqual({ cards: 64, nodes: 64 });
  });

  it('shows whole hours in hours and sends minutes', () => {
    expect(durationOf(120)).toEqual({ duration: 2, durationUnit: 'hour' });
    expect(durationOf(90)).toEqual({ duration: 90, durationUnit: 'minute' });
    const v = { name: ' 作业 ', subCenterId: 'c', cardTypeId: 't', cardNum: 0, nodeNum: 2, workDir: '  ', env: [{ name: ' A ', value: '' }], duration: 3, durationUnit: 'hour' as const };
    expect(taskPayload(v)).toEqual({ name: '作业', subCenterId: 'c', cardTypeId: 't', cardNum: 0, nodeNum: 2, workDir: undefined, env: [{ name: 'A', value: '' }], maxDurationMinutes: 180 });
  });

  it('keeps a derived name within the limit', () => {
    expect(nameWithSuffix('训练', '-副本')).toBe('训练-副本');
    const long = nameWithSuffix('x'.repeat(TASK_NAME_MAX), '-0101-0930');
    expect(long).toHaveLength(TASK_NAME_MAX);
    expect(long.endsWith('-0101-0930')).toBe(true);
  });
});
