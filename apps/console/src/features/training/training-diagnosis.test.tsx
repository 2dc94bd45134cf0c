import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeTraining, task } from './test/fake-training';
import { renderTraining } from './test/render';
import { setupPageTests } from '../../test/page-test';

let backend: ReturnType<typeof createFakeTraining>;
setupPageTests(() => (backend = createFakeTraining()));

describe('training task detail: 诊断 (issue 23)', () => {
  it('按建议重新提交 opens the form pre-filled with the longer limit, which the new task is submitted with', async () => {
    backend.put(
      task('7', {
        name: '超时任务',
        subCenterId: 'gz-ascend',
        subCenterName: '广州算力分中心',
        cardTypeId: 'ascend-910b',
        imageId: 'mindspore-2.3-cann8',
        command: 'python ms.py',
        maxDurationMinutes: 180,
        cardNum: 4,
        state: 'FAILED',
        reason: '超过最长运行时长',
        startTime: 1_700_000_000_000,
        endTime: 1_700_010_800_000,
        diagnosis: {
          cause: 'timeLimit',
          title: '超过最长运行时长，作业被停止',
          evidence: [{ text: '运行时长达到上限 3 小时' }, { text: '实际运行 180 分钟' }],
          suggestion: '把最长运行时长延长到 6 小时；长时间训练请定期保存检查点，以便从中断处继续。',
          change: { maxDurationMinutes: 360 },
        },
      }),
    );
    const router = renderTraining('/training/detail/train/7');
    const card = await screen.findByTestId('training-diagnosis');
    expect(within(card).getByTestId('training-diagnosis-title').textContent).toBe('超过最长运行时长，作业被停止');
    expect(card.textContent).toContain('将创建一个新任务：最长运行时长 6小时');
    fireEvent.click(within(card).getByTestId('training-diagnosis-apply'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/task/train'));
    expect(router.state.location.search).toContain('from=7');
    await waitFor(() => expect(screen.getByTestId('training-form-image').textContent).toContain('MindSpore 2.3 (CANN 8.0)'));
    fireEvent.click(screen.getByTestId('training-form-submit'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({ name: '超时任务-副本', cardNum: 4, maxDurationMinutes: 360, resubmittedFrom: '7' });
    // The new task's detail links 原任务.
    const original = await screen.findByTestId('training-detail-original');
    expect(original.textContent).toBe('超时任务');
    expect(original.getAttribute('href')).toBe('/training/detail/train/7');
  });

  it('a memory change is not offered for training (the form has no memory field): the suggestion stays advice', async () => {
    backend.put(
      task('8', {
        name: '内存',
        state: 'FAILED',
        diagnosis: { cause: 'memory', title: '内存超出限制，作业被系统终止', evidence: [{ text: '内存峰值 7.9 GiB' }], suggestion: '申请更多内存', change: { memoryMB: 16384 } },
      }),
    );
    renderTraining('/training/detail/train/8');
    const card = await screen.findByTestId('training-diagnosis');
    expect(within(card).queryByTestId('training-diagnosis-apply')).toBeNull();
  });
});
