import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { createFakeSlurm, NUMPY_PI, task } from './test/fake-slurm';
import { renderSlurm } from './test/render';
import { setupPageTests } from '../../test/page-test';
import { choose, confirmPop } from '../../test/ui';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

beforeEach(() => {
  backend.put(
    task('1', {
      name: '求π',
      type: 'template',
      templateId: NUMPY_PI.id,
      params: { samples: 5000 },
      state: 'RUNNING',
      jobId: '4101',
      nodeNum: 2,
      createTime: 1_700_000_300_000,
      startTime: 1_700_000_300_000,
    }),
  );
  backend.put(task('2', { name: '分子模拟', state: 'FAILED', reason: '退出码 1', jobId: '4102', cardTypeId: 'a100-80g', cardTypeName: 'NVIDIA A100 80G', cardNum: 4, createTime: 1_700_000_200_000 }));
  backend.put(task('3', { name: '排队作业', state: 'QUEUED', reason: '等待资源（Resources）', jobId: '4103', createTime: 1_700_000_100_000 }));
});

const rows = () => screen.queryAllByTestId('slurm-row');
const ids = () => rows().map((r) => r.getAttribute('data-id'));
const pageBodies = () => backend.callsTo('/slurm/api/v1/tasks/action/page', 'POST').map((c) => c.body);

describe('Slurm task list', () => {
  it('shows origin, center, resources, the state label and the Slurm job id of each task', async () => {
    renderSlurm('/slurm-task');
    await waitFor(() => expect(ids()).toEqual(['1', '2', '3']));
    expect(pageBodies()[0]).toEqual({ pageNum: 1, pageSize: 10 });
    const [running, failed, queued] = rows();
    expect(within(running).getByTestId('slurm-state').textContent).toBe('运行中');
    await waitFor(() => expect(within(running).getByTestId('slurm-origin').textContent).toBe('模板NumPy 蒙特卡洛求 π'));
    expect(running.textContent).toContain('仅 CPU × 2 节点');
    expect(running.textContent).toContain('4101');
    expect(running.textContent).toContain('无锡超算分中心');
    expect(within(running).queryByTestId('slurm-stop')).toBeTruthy();
    expect(within(running).queryByTestId('slurm-delete')).toBeNull();
    expect(within(failed).getByTestId('slurm-origin').textContent).toBe('自定义脚本');
    expect(failed.textContent).toContain('NVIDIA A100 80G × 4 卡');
    expect(within(failed).getByTestId('slurm-state').textContent).toBe('运行失败');
    expect(within(failed).queryByTestId('slurm-stop')).toBeNull();
    expect(within(failed).queryByTestId('slurm-delete')).toBeTruthy();
    expect(within(queued).getByTestId('slurm-state').textContent).toBe('排队中');
  });

  it('filters by the job_states dictionary and by name on the server', async () => {
    renderSlurm('/slurm-task');
    await waitFor(() => expect(rows()).toHaveLength(3));
    await choose('slurm-state-filter', '排队中');
    await waitFor(() => expect(ids()).toEqual(['3']));
    expect(pageBodies().at(-1)).toEqual({ pageNum: 1, pageSize: 10, state: 'QUEUED' });

    await choose('slurm-state-filter', '运行成功');
    expect(await screen.findByText('没有符合条件的任务')).toBeTruthy();
    expect(rows()).toHaveLength(0);

    fireEvent.click(within(screen.getByTestId('slurm-state-filter')).getByLabelText('close-circle'));
    await waitFor(() => expect(rows()).toHaveLength(3));
    const search = within(screen.getByTestId('slurm-search')).getByRole('searchbox');
    fireEvent.change(search, { target: { value: '分子' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(ids()).toEqual(['2']));
    expect(pageBodies().at(-1)).toEqual({ pageNum: 1, pageSize: 10, keyword: '分子' });
  });

  it('moves a row to its new state on task.state.changed, without polling', async () => {
    renderSlurm('/slurm-task');
    await waitFor(() => expect(rows()).toHaveLength(3));
    const before = pageBodies().length;
    backend.move('3', 'RUNNING');
    await act(() => new Promise((r) => setTimeout(r, 300)));
    expect(pageBodies()).toHaveLength(before);
    expect(rows()[2].getAttribute('data-state')).toBe('QUEUED');

    act(() => applyLiveEvent(queryClient, { businessType: 'task.state.changed', data: { taskId: '3', kind: 'slurm', state: 'RUNNING', reason: '' } }));
    await waitFor(() => expect(rows()[2].getAttribute('data-state')).toBe('RUNNING'));
    expect(within(rows()[2]).getByTestId('slurm-state').textContent).toBe('运行中');
  });

  it('stops, resubmits and deletes after confirming', async () => {
    const router = renderSlurm('/slurm-task');
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(within(rows()[0]).getByTestId('slurm-stop'));
    await confirmPop('确定停止该任务吗？');
    await waitFor(() => expect(within(rows()[0]).getByTestId('slurm-state').textContent).toBe('停止中'));
    expect(backend.callsTo('/slurm/api/v1/tasks/1/stop', 'POST')).toHaveLength(1);

    fireEvent.click(within(rows()[1]).getByTestId('slurm-delete'));
    await confirmPop('确定删除该任务吗？');
    await waitFor(() => expect(ids()).toEqual(['1', '3']));
    expect(backend.tasks.has('2')).toBe(false);

    fireEvent.click(within(rows()[1]).getByTestId('slurm-resubmit'));
    await confirmPop('确定重新提交该任务吗？');
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/custom/100'));
    expect(backend.tasks.get('100')?.name).toBe('排队作业');
  });

  it('a 重新提交 whose answer was lost is sent again with the same id: one new task, and the page opens it', async () => {
    const router = renderSlurm('/slurm-task');
    await waitFor(() => expect(rows()).toHaveLength(3));
    const resubmits = () => backend.callsTo('/slurm/api/v1/tasks/3/resubmit', 'POST');
    backend.faults.loseAnswers = 1;
    fireEvent.click(within(rows()[2]).getByTestId('slurm-resubmit'));
    await confirmPop('确定重新提交该任务吗？');
    await waitFor(() => expect(resubmits()).toHaveLength(1));
    expect(backend.tasks.has('100')).toBe(true);
    await waitFor(() => expect(within(rows()[2]).getByTestId('slurm-resubmit').classList.contains('ant-btn-loading')).toBe(false));
    expect(router.state.location.pathname).toBe('/slurm-task');

    fireEvent.click(within(rows()[2]).getByTestId('slurm-resubmit'));
    await confirmPop('确定重新提交该任务吗？');
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/custom/100'));
    expect(resubmits()).toHaveLength(2);
    expect(resubmits()[0].body.clientRequestId).toMatch(/^[0-9a-f]{32}$/);
    expect(resubmits()[1].body.clientRequestId).toBe(resubmits()[0].body.clientRequestId);
    expect([...backend.tasks.keys()].sort()).toEqual(['1', '100', '2', '3']);
  });
});

describe('外部作业 (issue 25)', () => {
  it('lists the jobs run outside the console read-only, with state, times, cards and what each drew', async () => {
    backend.outsideJobs.push({
      id: 'wx:7001',
      jobId: '7001',
      account: 'wxu0001',
      name: 'lammps-run',
      state: 'SUCCEEDED',
      slurmState: 'COMPLETED',
      reason: '',
      subCenterId: 'wx',
      subCenterName: '无锡超算分中心',
      cardTypeId: 'a100-80g',
      cardTypeName: 'NVIDIA A100 80G',
      partition: 'gpu',
      cardNum: 2,
      nodeNum: 1,
      billedCards: 2,
      submitTime: 1_700_000_000_000,
      startTime: 1_700_000_010_000,
      endTime: 1_700_000_370_000,
      consumed: '0.20',
      consumedSeconds: 720,
    });
    renderSlurm('/slurm-task?tab=outside');
    await waitFor(() => expect(screen.getAllByTestId('outside-row')).toHaveLength(1));
    const row = screen.getByTestId('outside-row');
    expect(row.getAttribute('data-id')).toBe('wx:7001');
    expect(row.textContent).toContain('lammps-run');
    expect(row.textContent).toContain('7001');
    expect(row.textContent).toContain('无锡超算分中心 · NVIDIA A100 80G');
    expect(row.textContent).toContain('2 卡 × 1 节点');
    expect(row.textContent).toContain('0.20');
    expect(within(row).getByTestId('outside-state').textContent).toBe('运行成功');
    // Read-only: no stop, delete or resubmit on an outside job.
    expect(within(row).queryByRole('button')).toBeNull();
    expect(backend.callsTo('/outside-jobs/action/page', 'POST')[0].body).toEqual({ pageNum: 1, pageSize: 10 });
  });

  it('the console tab stays the default and does not ask for outside jobs', async () => {
    renderSlurm('/slurm-task');
    await waitFor(() => expect(ids()).toEqual(['1', '2', '3']));
    expect(backend.callsTo('/outside-jobs/action/page')).toEqual([]);
    fireEvent.click(screen.getByTestId('slurm-outside-tab'));
    await waitFor(() => expect(screen.getByText('暂无外部作业')).toBeTruthy());
  });
});
