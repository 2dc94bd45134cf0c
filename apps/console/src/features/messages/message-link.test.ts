import { describe, expect, it } from 'vitest';
import { messageLink } from './message-link';

describe('messageLink', () => {
  it('leads to the task, asset or work order a message is about', () => {
    expect(messageLink({ businessType: 'training', businessId: 't1' })).toBe('/training/detail/train/t1');
    expect(messageLink({ businessType: 'slurm', businessId: 's 1' })).toBe('/slurm-task/detail/template/s%201');
    expect(messageLink({ businessType: 'dataset', businessId: 'd1' })).toBe('/dataset/detail/d1');
    expect(messageLink({ businessType: 'model', businessId: 'm1' })).toBe('/model/detail/m1');
    expect(messageLink({ businessType: 'workorder', businessId: 'w1' })).toBe('/workorder/detail/w1');
    expect(messageLink({ businessType: 'team', businessId: 't1' })).toBe('/team/detail/t1');
    // An invitation is answered in the message itself; the link is to 团队管理, where it also waits.
    expect(messageLink({ businessType: 'team.invitation', businessId: 'i1' })).toBe('/team');
  });
  it('has no link for system notices, syncs or a message without an id', () => {
    expect(messageLink({ businessType: null, businessId: null })).toBeNull();
    expect(messageLink({ businessType: 'sync', businessId: 'j1' })).toBeNull();
    expect(messageLink({ businessType: 'workorder', businessId: null })).toBeNull();
  });
});
