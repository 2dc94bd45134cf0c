import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { CompPowerBucket } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { setupPageTests } from '../../test/page-test';
import { choose, input } from '../../test/ui';
import { createFakeSlurm, NUMPY_PI } from './test/fake-slurm';
import { renderSlurm } from './test/render';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

const bucket = (subCenterId: string, cardTypeId: string, remaining: string): CompPowerBucket => ({
  id: `${subCenterId}-${cardTypeId}`,
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
const estimate = () => screen.getByTestId('slurm-form-estimate');
const setNumber = (testId: string, value: string) => {
  fireEvent.change(input(testId), { target: { value } });
  fireEvent.blur(input(testId));
};

describe('预计最多消耗 in the Slurm forms', () => {
  it('custom script: cards per node × nodes × the maximum run time, against the center\'s balance of the card type', async () => {
    backend.buckets.push(bucket('hpc-a', 'a100-80g', '5.00'));
    renderSlurm('/slurm-task/task/custom');
    await screen.findByTestId('slurm-form');
    await choose('slurm-form-card-type', 'NVIDIA A100 80G（空闲 8/16）');
    setNumber('slurm-form-card-num', '2');
    setNumber('slurm-form-node-num', '2');
    await waitFor(() => expect(estimate().getAttribute('data-need')).toBe('4.00'));
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('covered'));
    expect(estimate().textContent).toContain('预计最多消耗 4.00 卡时（2 卡 × 2 节点 × 1 小时）');
    expect(estimate().textContent).toContain('无锡超算分中心 · NVIDIA A100 80G 剩余 5.00 卡时，运行满最长时长后剩余 1.00 卡时');
    setNumber('slurm-form-node-num', '3');
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('short'));
    expect(estimate().textContent).toContain('仅剩 5.00 卡时，运行满最长时长还差 1.00 卡时');
  });

  it('from a template: the template\'s suggested resources (0 cards: CPU only) count 0 卡时', async () => {
    renderSlurm(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`);
    await screen.findByTestId('slurm-param-samples');
    await waitFor(() => expect(input('slurm-form-node-num').value).toBe('2'));
    await waitFor(() => expect(estimate().getAttribute('data-need')).toBe('0.00'));
    expect(estimate().textContent).toContain('（0 卡 × 2 节点 × 2 小时）');
  });
});
