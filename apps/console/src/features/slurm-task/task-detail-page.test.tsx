import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { createFakeSlurm, NUMPY_PI, task } from './test/fake-slurm';
import { renderSlurm } from './test/render';
import { renderRoutes } from '../../test/render-routes';
import { SlurmTaskDetailPage } from './routes';
import { setupPageTests } from '../../test/page-test';
import { confirmPop, input } from '../../test/ui';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

const detailGets = () => backend.calls.filter((c) => c.method === 'GET' && c.url.pathname.endsWith('/slurm/api/v1/tasks/5'));
const stateTag = () => screen.getByTestId('slurm-detail-state');
const events = () => screen.getAllByTestId('slurm-event').map((e) => e.textContent);
const SCRIPT = "#!/bin/bash\npython3 pi.py 5000 float32 'run 1' '/home/u1/results/pi.txt'\n";

describe('Slurm task detail', () => {
  it('shows the job id, center, resources, work directory, parameter values, the script and the timeline', async () => {
    backend.put(
      task('5', {
        name: '求π',
        type: 'template',
        templateId: NUMPY_PI.id,
        params: { samples: 5000, dtype: 'float32', tag: 'run 1', result: '/results/pi.txt' },
        command: SCRIPT,
        workDir: '/results',
        nodeNum: 2,
        state: 'QUEUED',
        reason: '等待资源（Resources）',
        jobId: '4242',
        events: [
          { state: 'CREATED', reason: '', time: 1_700_000_000_000 },
          { state: 'SUBMITTING', reason: '', time: 1_700_000_001_000 },
          { state: 'QUEUED', reason: '等待资源（Resources）', time: 1_700_000_002_000 },
        ],
      }),
    );
    renderSlurm('/slurm-task/detail/template/5');
    expect((await screen.findByTestId('slurm-detail-name')).textContent).toBe('求π');
    await waitFor(() => expect(stateTag().textContent).toBe('排队中'));
    expect(screen.getByTestId('slurm-detail-job-id').textContent).toBe('4242');
    const info = screen.getByTestId('slurm-detail-info');
    expect(info.textContent).toContain('无锡超算分中心');
    expect(info.textContent).toContain('仅 CPU × 2 节点');
    expect(info.textContent).toContain('/results');
    // The folder opens in 文件管理 on the task's center.
    expect(within(info).getByTestId('slurm-detail-workdir-open').getAttribute('href')).toBe('/storage?center=hpc-a&path=%2Fresults');
    // A center with Slurm: no note about running locally.
    expect(screen.queryByTestId('slurm-detail-local')).toBeNull();
    expect(within(info).getByTestId('slurm-queue-reason').textContent).toBe('等待资源（Resources）');
    // Parameter values under the template's labels.
    await waitFor(() => expect(screen.getByTestId('slurm-detail-origin').textContent).toContain('NumPy 蒙特卡洛求 π'));
    const params = screen.getByTestId('slurm-detail-params');
    expect(params.textContent).toContain('投点数');
    expect(screen.getByTestId('slurm-detail-param-samples').textContent).toBe('5000');
    expect(screen.getByTestId('slurm-detail-param-result').textContent).toBe('/results/pi.txt');
    // The rendered script is folded away until asked for.
    expect(screen.queryByTestId('slurm-detail-script')).toBeNull();
    fireEvent.click(within(screen.getByTestId('slurm-detail-script-panel')).getByText('作业脚本（由模板生成）'));
    expect((await screen.findByTestId('slurm-detail-script')).textContent).toBe(SCRIPT);
    expect(events().map((t) => t!.slice(0, 3))).toEqual(['已创建', '提交中', '排队中']);
    expect(screen.getByTestId('slurm-log').textContent).toBe('任务尚未开始运行，暂无日志。');
    expect(screen.getByTestId('slurm-detail-stop')).toBeTruthy();
    expect(screen.queryByTestId('slurm-detail-delete')).toBeNull();
  });

  it('changes state only on task.state.changed, then follows the log from nextOffset', async () => {
    backend.put(task('5', { state: 'QUEUED', jobId: '4242', events: [{ state: 'QUEUED', reason: '', time: 1_700_000_000_000 }] }));
    renderSlurm('/slurm-task/detail/custom/5');
    await waitFor(() => expect(stateTag().textContent).toBe('排队中'));
    expect(detailGets()).toHaveLength(1);

    // The job starts on the cluster; without the event nothing on the page asks for the task again.
    backend.move('5', 'RUNNING');
    backend.logs.set('5', 'step 1\n');
    await act(() => new Promise((r) => setTimeout(r, 300)));
    expect(detailGets()).toHaveLength(1);
    expect(stateTag().textContent).toBe('排队中');

    // An event of the other family leaves this page alone.
    act(() => applyLiveEvent(queryClient, { businessType: 'task.state.changed', data: { taskId: '9', kind: 'training', state: 'RUNNING', reason: '' } }));
    await act(() => new Promise((r) => setTimeout(r, 100)));
    expect(detailGets()).toHaveLength(1);

    act(() => applyLiveEvent(queryClient, { businessType: 'task.state.changed', data: { taskId: '5', kind: 'slurm', state: 'RUNNING', reason: '' } }));
    await waitFor(() => expect(stateTag().textContent).toBe('运行中'));
    expect(stateTag().getAttribute('data-state')).toBe('RUNNING');
    expect(detailGets()).toHaveLength(2);
    expect(events().at(-1)).toContain('运行中');

    await waitFor(() => expect(screen.getByTestId('slurm-log').textContent).toBe('step 1\n'));
    backend.logs.set('5', 'step 1\nstep 2\n');
    await waitFor(() => expect(screen.getByTestId('slurm-log').textContent).toBe('step 1\nstep 2\n'), { timeout: 6000 });
    const offsets = backend.callsTo('/slurm/api/v1/tasks/5/log', 'GET').map((c) => c.url.searchParams.get('offset'));
    expect(offsets).toContain('7');
    expect(detailGets()).toHaveLength(2);

    // It ends: the event brings 运行成功, 删除 appears and 停止 goes.
    backend.move('5', 'SUCCEEDED', '退出码 0');
    act(() => applyLiveEvent(queryClient, { businessType: 'task.state.changed', data: { taskId: '5', kind: 'slurm', state: 'SUCCEEDED', reason: '退出码 0' } }));
    await waitFor(() => expect(stateTag().textContent).toBe('运行成功'));
    expect(screen.queryByTestId('slurm-detail-stop')).toBeNull();
    expect(screen.getByTestId('slurm-detail-delete')).toBeTruthy();
    // Only a failed task asks whether the user needs help.
    expect(screen.queryByTestId('slurm-detail-help')).toBeNull();
  });

  it('saves the task as a template and deletes it once ended', async () => {
    backend.put(task('5', { name: '分子模拟', state: 'FAILED', reason: '退出码 1', command: '#!/bin/bash\nlmp -in in.melt\n', events: [{ state: 'FAILED', reason: '退出码 1', time: 1_700_000_090_000 }] }));
    const router = renderSlurm('/slurm-task/detail/custom/5');
    await waitFor(() => expect(stateTag().textContent).toBe('运行失败'));
    expect(screen.getByTestId('slurm-detail-reason').textContent).toBe('退出码 1');
    // A failed task's page offers help: a work order about this task.
    expect(screen.getByTestId('slurm-detail-help-link').getAttribute('href')).toBe('/workorder?new=task&taskId=5');

    fireEvent.click(screen.getByTestId('slurm-detail-save-template'));
    await waitFor(() => expect(input('slurm-save-template-name').value).toBe('分子模拟'));
    fireEvent.change(input('slurm-save-template-name'), { target: { value: 'LJ 熔化（我的）' } });
    fireEvent.click(screen.getByTestId('slurm-save-template-ok'));
    await waitFor(() => expect(backend.callsTo('/tasks/5/save-as-template', 'POST')).toHaveLength(1));
    // Empty description and category are left to the server.
    expect(backend.callsTo('/tasks/5/save-as-template', 'POST')[0].body).toEqual({ name: 'LJ 熔化（我的）' });
    expect([...backend.templates.values()].find((t) => t.name === 'LJ 熔化（我的）')?.script).toBe('#!/bin/bash\nlmp -in in.melt\n');

    fireEvent.click(screen.getByTestId('slurm-detail-delete'));
    await confirmPop('确定删除该任务吗？');
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task'));
    expect(backend.tasks.has('5')).toBe(false);
  });

  it('links 已消耗 to the task’s own 消费记录 in 费用明细', async () => {
    backend.put(task('5', { state: 'RUNNING', consumed: '1.07', jobId: '4242', startTime: Date.now() - 60_000, events: [{ state: 'RUNNING', reason: '', time: 1_700_000_000_000 }] }));
    // 费用明细 stands in as a bare route: where the link leads is the assertion, not that page.
    const router = renderRoutes({ '/slurm-task/detail/:type/:id': <SlurmTaskDetailPage />, '/expense': <p>费用明细</p> }, '/slurm-task/detail/custom/5');
    await waitFor(() => expect(screen.getByTestId('slurm-detail-consumed').textContent).toBe('1.07 卡时'));
    const link = screen.getByTestId('slurm-detail-consume-records');
    expect(link.textContent).toBe('消费记录');
    fireEvent.click(link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/expense'));
    expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({ tab: 'consume', taskId: '5' });
  });

  it('says when the job ran on the platform itself instead of Slurm (the embedded default)', async () => {
    backend = createFakeSlurm({ schedulerKind: 'local' });
    vi.stubGlobal('fetch', vi.fn(backend.fetch));
    backend.put(task('6', { name: '本机作业', command: SCRIPT, jobId: 'local-12', state: 'SUCCEEDED' }));
    renderSlurm('/slurm-task/detail/custom/6');
    const note = await screen.findByTestId('slurm-detail-local');
    expect(note.textContent).toContain('未接入 Slurm 调度系统，本作业由平台直接在本机运行（作业号 local-12）');
  });
});
