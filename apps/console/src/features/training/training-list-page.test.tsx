import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { createFakeTraining, task } from './test/fake-training';
import { renderTraining } from './test/render';
import { setupPageTests } from '../../test/page-test';
import { choose, confirmPop } from '../../test/ui';

let backend: ReturnType<typeof createFakeTraining>;
setupPageTests(() => (backend = createFakeTraining()));

beforeEach(() => {
  backend.put(task('1', { name: '图像分类', state: 'RUNNING', startTime: 1_700_000_000_000, createTime: 1_700_000_300_000 }));
  backend.put(task('2', { name: '文本生成', state: 'FAILED', reason: '退出码 1', createTime: 1_700_000_200_000, startTime: 1_700_000_200_000, endTime: 1_700_000_260_000 }));
  backend.put(task('3', { name: '调参实验', state: 'QUEUED', reason: '等待资源', createTime: 1_700_000_100_000 }));
  backend.put(task('4', { name: '多机训练', type: 'distributed', nodeNum: 4, cardNum: 8, state: 'RUNNING' }));
});

const rows = () => screen.queryAllByTestId('training-row');
const ids = () => rows().map((r) => r.getAttribute('data-id'));
const pageBodies = () => backend.callsTo('/tasks/action/page', 'POST').map((c) => c.body);

describe('training lists', () => {
  it('lists the tasks of its type with the dictionary label of each state, cards and running time', async () => {
    renderTraining('/training');
    await waitFor(() => expect(ids()).toEqual(['1', '2', '3']));
    expect(pageBodies()[0]).toMatchObject({ type: 'train', pageNum: 1, pageSize: 10 });
    const running = rows()[0];
    expect(within(running).getByTestId('training-state').textContent).toBe('运行中');
    expect(running.textContent).toContain('NVIDIA A100 80G × 2 卡');
    expect(running.textContent).toContain('深圳算力分中心');
    // A running task can be stopped, not deleted; a failed one the other way round.
    expect(within(running).queryByTestId('training-stop')).toBeTruthy();
    expect(within(running).queryByTestId('training-delete')).toBeNull();
    const failed = rows()[1];
    expect(within(failed).getByTestId('training-state').textContent).toBe('运行失败');
    expect(within(failed).queryByTestId('training-stop')).toBeNull();
    expect(within(failed).queryByTestId('training-delete')).toBeTruthy();
    expect(failed.textContent).toContain('1分0秒');
  });

  it('filters by state and by name on the server', async () => {
    renderTraining('/training');
    await waitFor(() => expect(rows()).toHaveLength(3));
    await choose('training-state-filter', '排队中');
    await waitFor(() => expect(ids()).toEqual(['3']));
    expect(pageBodies().at(-1)).toMatchObject({ type: 'train', state: 'QUEUED', pageNum: 1 });

    await choose('training-state-filter', '运行成功');
    expect(await screen.findByText('没有符合条件的任务')).toBeTruthy();
    expect(rows()).toHaveLength(0);

    fireEvent.click(within(screen.getByTestId('training-state-filter')).getByLabelText('close-circle'));
    await waitFor(() => expect(rows()).toHaveLength(3));
    const search = within(screen.getByTestId('training-search')).getByRole('searchbox');
    fireEvent.change(search, { target: { value: '文本' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(ids()).toEqual(['2']));
    expect(pageBodies().at(-1)).toMatchObject({ keyword: '文本' });
  });

  it('shows the distributed list with nodes, and a Chinese empty state on an empty type', async () => {
    const router = renderTraining('/training/distributed');
    await waitFor(() => expect(ids()).toEqual(['4']));
    expect(rows()[0].textContent).toContain('NVIDIA A100 80G × 8 卡 × 4 节点');
    fireEvent.click(screen.getByTestId('training-tab-develop'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/develop'));
    expect(await screen.findByText('暂无交互式开发任务')).toBeTruthy();
  });

  it('stops a running task after confirming, and the row shows 停止中', async () => {
    renderTraining('/training');
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(within(rows()[0]).getByTestId('training-stop'));
    await confirmPop('确定停止该任务吗？');
    await waitFor(() => expect(backend.callsTo('/tasks/1/stop', 'POST')).toHaveLength(1));
    await waitFor(() => expect(within(rows()[0]).getByTestId('training-state').textContent).toBe('停止中'));
    await act(async () => {});
  });
});
