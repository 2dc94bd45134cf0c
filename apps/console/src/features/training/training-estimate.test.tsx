import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { CompPowerBucket } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { setupPageTests } from '../../test/page-test';
import { choose, input } from '../../test/ui';
import { createFakeTraining } from './test/fake-training';
import { renderTraining } from './test/render';

let backend: ReturnType<typeof createFakeTraining>;
setupPageTests(() => (backend = createFakeTraining()));

const bucket = (subCenterId: string, cardTypeId: string, remaining: string): CompPowerBucket => ({
  id: `${subCenterId}-${remaining}`,
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
const estimate = () => screen.getByTestId('training-form-estimate');
const setNumber = (testId: string, value: string) => {
  fireEvent.change(input(testId), { target: { value } });
  fireEvent.blur(input(testId));
};

describe('预计最多消耗 in the training forms', () => {
  it('single-node: cards × the maximum run time against the chosen center\'s balance of that card type; a warning when short', async () => {
    backend.buckets.push(bucket('sz-a100', 'a100-80g', '0.50'), bucket('gz-ascend', 'ascend-910b', '99.00'), bucket('sz-a100', 'a100-80g', '0.25'));
    renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    expect(estimate().getAttribute('data-state')).toBe('incomplete');
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    // 智能调度 places it on 深圳 (the fake's first center with the card type): the balance there is 0.75.
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('short'));
    expect(estimate().getAttribute('data-need')).toBe('1.00');
    expect(estimate().textContent).toContain('预计最多消耗 1.00 卡时（1 卡 × 1 节点 × 60 分钟）');
    expect(estimate().textContent).toContain('剩余算力不足：深圳算力分中心 · NVIDIA A100 80G 仅剩 0.75 卡时，运行满最长时长还差 0.25 卡时');
    expect(screen.getByTestId('training-form-estimate-buy').getAttribute('href')).toBe('/pay');

    setNumber('training-form-duration', '30');
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('covered'));
    expect(estimate().textContent).toContain('预计最多消耗 0.50 卡时（1 卡 × 1 节点 × 30 分钟）');
    expect(estimate().textContent).toContain('深圳算力分中心 · NVIDIA A100 80G 剩余 0.75 卡时，运行满最长时长后剩余 0.25 卡时');

    // Another center: its own balance of the card type (none here).
    await choose('training-form-center', '广州算力分中心');
    await choose('training-form-card-type', '昇腾 910B（空闲 32/32）');
    setNumber('training-form-card-num', '4');
    await waitFor(() => expect(estimate().getAttribute('data-need')).toBe('2.00'));
    expect(estimate().getAttribute('data-state')).toBe('covered');
    expect(estimate().textContent).toContain('广州算力分中心 · 昇腾 910B 剩余 99.00 卡时，运行满最长时长后剩余 97.00 卡时');
    // Hours count as 60 minutes: 4 cards × 30 hours.
    fireEvent.mouseDown(screen.getByLabelText('时长单位'));
    fireEvent.click(await waitFor(() => [...document.querySelectorAll<HTMLElement>('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')].find((o) => o.textContent === '小时')!));
    await waitFor(() => expect(estimate().getAttribute('data-need')).toBe('120.00'));
    expect(estimate().textContent).toContain('（4 卡 × 1 节点 × 30 小时）');
    expect(estimate().getAttribute('data-state')).toBe('short');
    expect(estimate().textContent).toContain('仅剩 99.00 卡时，运行满最长时长还差 21.00 卡时');
  });

  it('付费方 团队: the team\'s balance, not the caller\'s own; back to 个人 reads the own balance again', async () => {
    backend.buckets.push(bucket('sz-a100', 'a100-80g', '99.00'));
    backend.teamBuckets.set('tm1', [bucket('sz-a100', 'a100-80g', '0.40'), bucket('gz-ascend', 'a100-80g', '50.00')]);
    renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('covered'));
    expect(estimate().getAttribute('data-payer')).toBe('personal');
    expect(estimate().textContent).toContain('深圳算力分中心 · NVIDIA A100 80G 剩余 99.00 卡时');

    await choose('training-form-payer', '团队：蛋白质组（成员）');
    // The team's bucket on 深圳 (0.40; its 广州 bucket does not count), short of the 1.00 a full run needs.
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('short'));
    expect(estimate().getAttribute('data-payer')).toBe('team');
    expect(estimate().textContent).toContain('剩余算力不足：团队「蛋白质组」在 深圳算力分中心 · NVIDIA A100 80G 仅剩 0.40 卡时，运行满最长时长还差 0.60 卡时');
    // A plain member cannot buy for the team: no link, who to ask instead.
    expect(screen.queryByTestId('training-form-estimate-buy')).toBeNull();
    expect(estimate().textContent).toContain('请联系团队所有者或管理员为团队购买算力');
    expect(backend.calls.some((c) => c.url.pathname.endsWith('/comp-powers/team/tm1'))).toBe(true);

    await choose('training-form-payer', '个人');
    await waitFor(() => expect(estimate().getAttribute('data-payer')).toBe('personal'));
    expect(estimate().getAttribute('data-state')).toBe('covered');
    expect(estimate().textContent).toContain('剩余 99.00 卡时');
  });

  it('付费方 团队 of which the caller is an admin: 为团队购买算力 leads to /pay?teamId=', async () => {
    backend.teamBuckets.set('tm2', []);
    renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    await choose('training-form-payer', '团队：计算化学（管理员）');
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('short'));
    expect(estimate().textContent).toContain('团队「计算化学」在 深圳算力分中心 · NVIDIA A100 80G 仅剩 0.00 卡时');
    expect(screen.getByTestId('training-form-estimate-buy').getAttribute('href')).toBe('/pay?teamId=tm2');
    expect(screen.getByTestId('training-form-estimate-buy').textContent).toBe('为团队购买算力');
  });

  it('distributed: × nodes', async () => {
    renderTraining('/training/task/distributed');
    await screen.findByTestId('training-form');
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    await waitFor(() => expect(estimate().getAttribute('data-need')).toBe('2.00'));
    expect(estimate().textContent).toContain('（1 卡 × 2 节点 × 60 分钟）');
    await waitFor(() => expect(estimate().getAttribute('data-state')).toBe('short'));
  });

  it('the develop form shows it as well', async () => {
    renderTraining('/training/task/develop');
    await screen.findByTestId('training-form');
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    await waitFor(() => expect(estimate().getAttribute('data-need')).toBe('1.00'));
  });
});
