import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { createFakeTraining, task } from './test/fake-training';
import { renderTraining } from './test/render';
import { renderRoutes } from '../../test/render-routes';
import { TrainingDetailPage } from './detail-routes';
import { setupPageTests } from '../../test/page-test';
import { confirmPop } from '../../test/ui';

let backend: ReturnType<typeof createFakeTraining>;
setupPageTests(() => (backend = createFakeTraining()));

const detailGets = () => backend.calls.filter((c) => c.method === 'GET' && c.url.pathname.endsWith('/training/api/v1/tasks/5'));
const stateTag = () => screen.getByTestId('training-detail-state');
const events = () => screen.getAllByTestId('training-event').map((e) => e.textContent);

describe('training task detail', () => {
  it('shows the parameters, the queue reason and the timeline of states', async () => {
    backend.put(
      task('5', {
        name: '图像分类',
        state: 'QUEUED',
        reason: '等待空闲的 A100',
        estimatedStart: 1_700_000_600_000,
        placementReason: '智能调度：深圳算力分中心排队最短',
        events: [
          { state: 'CREATED', reason: '', time: 1_700_000_000_000 },
          { state: 'SUBMITTING', reason: '', time: 1_700_000_001_000 },
          { state: 'QUEUED', reason: '等待空闲的 A100', time: 1_700_000_002_000 },
        ],
      }),
    );
    renderTraining('/training/detail/train/5');
    expect((await screen.findByTestId('training-detail-name')).textContent).toBe('图像分类');
    await waitFor(() => expect(stateTag().textContent).toBe('排队中'));
    const info = screen.getByTestId('training-detail-info');
    expect(info.textContent).toContain('智能调度：深圳算力分中心排队最短');
    expect(info.textContent).toContain('EPOCHS=3');
    expect(info.textContent).toContain('2小时');
    expect(within(info).getByTestId('training-queue-reason').textContent).toBe('等待空闲的 A100');
    expect(within(info).getByTestId('training-detail-job-id').textContent).toBe('—');
    expect(events().map((t) => t!.slice(0, 3))).toEqual(['已创建', '提交中', '排队中']);
    expect(events()[2]).toContain('等待空闲的 A100');
    expect(screen.getByTestId('training-log').textContent).toBe('任务尚未开始运行，暂无日志。');
    expect(screen.getByTestId('training-detail-stop')).toBeTruthy();
    expect(screen.queryByTestId('training-detail-delete')).toBeNull();
  });

  it('changes state only on the task.state.changed event, then follows the log and draws the curves', async () => {
    backend.put(task('5', { state: 'QUEUED', events: [{ state: 'QUEUED', reason: '', time: 1_700_000_000_000 }] }));
    renderTraining('/training/detail/train/5');
    await waitFor(() => expect(stateTag().textContent).toBe('排队中'));
    expect(detailGets()).toHaveLength(1);

    // The task starts on the server; without the event nothing on the page asks for it again.
    backend.move('5', 'RUNNING');
    backend.logs.set('5', 'epoch 1 loss=0.9\n');
    backend.metrics.set('5', [
      { step: 1, loss: 0.9, acc: 0.5 },
      { step: 2, loss: 0.7, acc: 0.6 },
    ]);
    await act(() => new Promise((r) => setTimeout(r, 300)));
    expect(detailGets()).toHaveLength(1);
    expect(stateTag().textContent).toBe('排队中');

    act(() => applyLiveEvent(queryClient, { businessType: 'task.state.changed', data: { taskId: '5', kind: 'training', state: 'RUNNING', reason: '' } }));
    await waitFor(() => expect(stateTag().textContent).toBe('运行中'));
    expect(detailGets()).toHaveLength(2);
    expect(events().at(-1)).toContain('运行中');

    // The log is a growing file: read from 0, then again from nextOffset while the task runs.
    await waitFor(() => expect(screen.getByTestId('training-log').textContent).toBe('epoch 1 loss=0.9\n'));
    backend.logs.set('5', 'epoch 1 loss=0.9\nepoch 2 loss=0.7\n');
    await waitFor(() => expect(screen.getByTestId('training-log').textContent).toBe('epoch 1 loss=0.9\nepoch 2 loss=0.7\n'), { timeout: 6000 });
    const offsets = backend.callsTo('/tasks/5/log', 'GET').map((c) => c.url.searchParams.get('offset'));
    expect(offsets).toContain('17');

    const chart = screen.getByTestId('training-chart');
    await waitFor(() => expect(chart.getAttribute('data-points')).toBe('2'));
    expect(chart.getAttribute('data-series')).toBe('loss,acc');

    // Still no polling of the task itself.
    expect(detailGets()).toHaveLength(2);
  });

  it('shows 已消耗, which rises on each draw (comp-power.changed) while the task runs', async () => {
    backend.put(task('5', { state: 'RUNNING', startTime: Date.now() - 60_000, consumed: '0.13', events: [{ state: 'RUNNING', reason: '', time: 1_700_000_000_000 }] }));
    renderTraining('/training/detail/train/5');
    await waitFor(() => expect(screen.getByTestId('training-detail-consumed').textContent).toBe('0.13 卡时'));
    backend.put({ ...backend.tasks.get('5')!, consumed: '0.27' });
    act(() => applyLiveEvent(queryClient, { businessType: 'comp-power.changed', data: {} }));
    await waitFor(() => expect(screen.getByTestId('training-detail-consumed').textContent).toBe('0.27 卡时'));
  });

  it('links 已消耗 to the task’s own 消费记录 in 费用明细', async () => {
    backend.put(task('5', { state: 'SUCCEEDED', consumed: '0.42', startTime: 1_700_000_000_000, endTime: 1_700_000_090_000, events: [{ state: 'SUCCEEDED', reason: '', time: 1_700_000_090_000 }] }));
    // 费用明细 stands in as a bare route: where the link leads is the assertion, not that page.
    const router = renderRoutes({ '/training/detail/:type/:id': <TrainingDetailPage />, '/expense': <p>费用明细</p> }, '/training/detail/train/5');
    const link = await screen.findByTestId('training-detail-consume-records');
    expect(link.textContent).toBe('消费记录');
    expect(link.getAttribute('href')).toBe('/expense?tab=consume&taskId=5');
    fireEvent.click(link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/expense'));
    expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({ tab: 'consume', taskId: '5' });
  });

  it('offers 删除 once the task ended, and leaves for the list after it', async () => {
    backend.put(task('5', { state: 'SUCCEEDED', exitCode: 0, startTime: 1_700_000_000_000, endTime: 1_700_000_090_000, events: [{ state: 'SUCCEEDED', reason: '退出码 0', time: 1_700_000_090_000 }] }));
    backend.logs.set('5', 'done\n');
    const router = renderTraining('/training/detail/train/5');
    await waitFor(() => expect(stateTag().textContent).toBe('运行成功'));
    expect(screen.queryByTestId('training-detail-stop')).toBeNull();
    await waitFor(() => expect(screen.getByTestId('training-log').textContent).toBe('done\n'));
    screen.getByTestId('training-detail-delete').click();
    await confirmPop();
    await waitFor(() => expect(router.state.location.pathname).toBe('/training'));
    expect(backend.tasks.has('5')).toBe(false);
  });

  it('warns before a development environment reaches its maximum duration', async () => {
    const started = Date.now() - 115 * 60_000;
    backend.put(task('5', { type: 'develop', state: 'RUNNING', startTime: started, maxDurationMinutes: 120 }));
    renderTraining('/training/detail/develop/5');
    const notice = await screen.findByTestId('training-expiry');
    expect(notice.textContent).toContain('开发环境将于');
    expect(notice.textContent).toContain('请及时保存工作');
  });

  it('shows the SSH command of a running develop environment on a Slurm center, none for a local one', async () => {
    backend.put(task('5', { type: 'develop', state: 'RUNNING', startTime: Date.now(), maxDurationMinutes: 120, subCenterId: 'slurm-a', subCenterName: '测试集群甲', jobId: '42' }));
    backend.put(task('6', { type: 'develop', state: 'RUNNING', startTime: Date.now(), maxDurationMinutes: 120 }));
    renderTraining('/training/detail/develop/5');
    const card = await screen.findByTestId('training-detail-ssh');
    expect(within(card).getByTestId('training-detail-ssh-command').textContent).toBe('ssh -p 2222 -t sla0001@login.example srun --jobid=42 --overlap --pty bash -l');
    expect(card.textContent).toContain('密钥对');
    expect(card.textContent).toContain('测试集群甲');
    cleanup();
    renderTraining('/training/detail/develop/6');
    await screen.findByTestId('training-expiry');
    await waitFor(() => expect(backend.calls.some((c) => c.url.pathname.endsWith('/tasks/6/ssh'))).toBe(true));
    expect(screen.queryByTestId('training-detail-ssh')).toBeNull();
  });
});
