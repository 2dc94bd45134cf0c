import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeSlurm, task } from './test/fake-slurm';
import { renderSlurm } from './test/render';
import { setupPageTests } from '../../test/page-test';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

const FAILED = {
  name: '内存超限',
  type: 'custom',
  state: 'FAILED' as const,
  reason: '内存不足',
  exitCode: 137,
  startTime: 1_700_000_000_000,
  endTime: 1_700_000_090_000,
  diagnosis: {
    cause: 'memory' as const,
    title: '内存超出限制，作业被系统终止',
    evidence: [{ text: '内存峰值 136 MiB，申请 80 MiB' }, { text: 'slurmstepd: error: Detected 1 oom_kill event', logLine: 42 }],
    suggestion: '申请更多内存（建议 1.0 GiB），或减小数据批量、分块读取数据。',
    change: { memoryMB: 1024 },
  },
  efficiency: {
    elapsedSeconds: 90,
    cpus: 4,
    cpuSeconds: 36,
    cpuEfficiency: 0.1,
    maxRssMB: 81,
    requestedMemMB: 80,
    memoryEfficiency: 1.013,
    cardHours: '0.02',
    acceleratorReported: false,
    hint: 'CPU 利用率只有 10%：申请了 4 个核，平均只用了约 1 个。',
  },
};

describe('Slurm task detail: 诊断 and 资源使用效率 (issue 23)', () => {
  it('shows the cause, the evidence with its log line, the suggestion, and 按建议重新提交 sends the change and opens the new task', async () => {
    backend.put(task('5', FAILED));
    const router = renderSlurm('/slurm-task/detail/custom/5');
    const card = await screen.findByTestId('slurm-diagnosis');
    expect(within(card).getByTestId('slurm-diagnosis-title').textContent).toBe('内存超出限制，作业被系统终止');
    const evidence = within(card).getByTestId('slurm-diagnosis-evidence').querySelectorAll('li');
    expect([...evidence].map((li) => li.textContent)).toEqual(['内存峰值 136 MiB，申请 80 MiB', '日志第 42 行：slurmstepd: error: Detected 1 oom_kill event']);
    expect(within(card).getByTestId('slurm-diagnosis-suggestion').textContent).toContain('申请更多内存（建议 1.0 GiB）');
    expect(card.textContent).toContain('将创建一个新任务：内存 1 GiB，其余参数与原任务相同。');

    const eff = screen.getByTestId('slurm-efficiency');
    expect(within(eff).getByTestId('slurm-efficiency-cpu').textContent).toBe('10%（CPU 时间 36秒，4 核）');
    expect(within(eff).getByTestId('slurm-efficiency-mem').textContent).toBe('81 MiB（申请 80 MiB，101%）');
    expect(eff.textContent).toContain('0.02 卡时');
    expect(eff.textContent).toContain('该分中心未上报加速卡使用情况');
    expect(within(eff).getByTestId('slurm-efficiency-hint').textContent).toContain('平均只用了约 1 个');

    fireEvent.click(within(card).getByTestId('slurm-diagnosis-apply'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/custom/100'));
    const sent = backend.callsTo('/slurm/api/v1/tasks/5/resubmit', 'POST');
    expect(sent).toHaveLength(1);
    expect(sent[0].body.change).toEqual({ memoryMB: 1024 });
    expect(sent[0].body.clientRequestId).toMatch(/^[0-9a-f]{32}$/);
    // The new task's detail links 原任务, and the link leads back.
    const original = await screen.findByTestId('slurm-detail-original');
    expect(original.textContent).toBe('内存超限');
    fireEvent.click(original);
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/custom/5'));
    expect(screen.queryByTestId('slurm-detail-original')).toBeNull();
  });

  it('a task without a diagnosis (succeeded, or stopped in the console) shows no 诊断 card', async () => {
    backend.put(task('6', { name: '成功', type: 'custom', state: 'SUCCEEDED', exitCode: 0 }));
    renderSlurm('/slurm-task/detail/custom/6');
    await screen.findByTestId('slurm-detail-info');
    expect(screen.queryByTestId('slurm-diagnosis')).toBeNull();
    expect(screen.queryByTestId('slurm-efficiency')).toBeNull();
  });
});
