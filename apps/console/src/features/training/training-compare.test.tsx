import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ComparedTask } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { compareRows, differingLines, metricCharts } from './compare-view';
import { createFakeTraining, task } from './test/fake-training';
import { renderTraining } from './test/render';
import { setupPageTests } from '../../test/page-test';

let backend: ReturnType<typeof createFakeTraining>;
setupPageTests(() => (backend = createFakeTraining()));

/** Three runs of a learning-rate sweep: the third failed, used more cards and has no acc curve. */
function sweep() {
  const ended = { startTime: 1_700_000_000_000, endTime: 1_700_000_090_000 };
  backend.put(task('1', { name: '学习率 0.1', state: 'SUCCEEDED', exitCode: 0, env: [{ name: 'EPOCHS', value: '3' }, { name: 'LR', value: '0.1' }], createTime: 1_700_000_300_000, ...ended }));
  backend.put(task('2', { name: '学习率 0.5', state: 'SUCCEEDED', exitCode: 0, env: [{ name: 'LR', value: '0.5' }, { name: 'EPOCHS', value: '3' }], createTime: 1_700_000_200_000, ...ended }));
  backend.put(task('3', { name: '学习率 1', state: 'FAILED', exitCode: 1, reason: '退出码 1', cardNum: 4, env: [{ name: 'EPOCHS', value: '3' }, { name: 'LR', value: '1' }], createTime: 1_700_000_100_000, ...ended }));
  backend.put(task('9', { name: '分布式', type: 'distributed', nodeNum: 2 }));
  backend.metrics.set('1', [{ step: 1, loss: 0.9, acc: 0.5 }, { step: 2, loss: 0.6, acc: 0.7 }]);
  backend.metrics.set('2', [{ step: 1, loss: 0.8, acc: 0.6 }, { step: 2, loss: 0.3, acc: 0.9 }]);
  backend.metrics.set('3', [{ step: 1, loss: 2.5 }]);
}

const row = (key: string) => screen.getAllByTestId('compare-row').find((r) => r.getAttribute('data-key') === key)!;

describe('training: 任务对比 (issue 23 item 4)', () => {
  it('picks three runs in the list, opens their comparison: curves per scalar, parameters side by side, differences marked', async () => {
    sweep();
    const router = renderTraining('/training');
    await waitFor(() => expect(screen.getAllByTestId('training-row')).toHaveLength(3));
    const compare = screen.getByTestId('training-compare');
    expect((compare as HTMLButtonElement).disabled).toBe(true);
    for (const r of screen.getAllByTestId('training-row')) fireEvent.click(within(r).getByRole('checkbox'));
    expect(compare.textContent).toContain('对比（3）');
    fireEvent.click(compare);
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/compare'));
    expect(router.state.location.search).toBe('?ids=1,2,3');

    const page = await screen.findByTestId('compare-page');
    expect(page.getAttribute('data-count')).toBe('3');
    expect(backend.callsTo('/tasks/action/compare', 'POST')[0]!.body).toEqual({ ids: ['1', '2', '3'] });
    // One chart per scalar; the failed run wrote loss only.
    const charts = screen.getAllByTestId('compare-chart');
    expect(charts.map((c) => [c.getAttribute('data-metric'), c.getAttribute('data-runs')])).toEqual([
      ['loss', '1,2,3'],
      ['acc', '1,2'],
    ]);
    // Runs in the order picked, each linked to its detail, with its state (the header row of the table).
    const head = screen.getByTestId('compare-params').querySelector('thead')!;
    expect([...head.querySelectorAll('[data-testid=compare-run]')].map((a) => a.textContent)).toEqual(['1. 学习率 0.1', '2. 学习率 0.5', '3. 学习率 1']);
    expect(head.querySelectorAll('[data-testid=compare-run]')[2]!.getAttribute('href')).toBe('/training/detail/train/3');
    expect([...head.querySelectorAll('[data-testid=compare-run-state]')].map((s) => s.textContent)).toEqual(['运行成功', '运行成功', '运行失败']);

    // Result, cards and the LR variable differ; the image, command and center do not (env order is no difference).
    expect(row('result').getAttribute('data-differs')).toBe('true');
    // The reason is not repeated when it only restates the exit code.
    expect(row('result').textContent).toContain('运行失败，退出码 1');
    expect(row('result').textContent).not.toContain('退出码 1，退出码 1');
    expect(row('cards').getAttribute('data-differs')).toBe('true');
    expect(row('cards').textContent).toContain('NVIDIA A100 80G × 4 卡');
    expect(row('env').getAttribute('data-differs')).toBe('true');
    expect([...row('env').querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['LR=0.1', 'LR=0.5', 'LR=1']);
    for (const same of ['image', 'command', 'center', 'duration']) expect(row(same).getAttribute('data-differs'), same).toBe('false');
    expect(within(row('cards')).getByText('不同')).toBeTruthy();
    expect(within(row('image')).queryByText('不同')).toBeNull();
    expect(screen.getByTestId('compare-summary').textContent).toMatch(/^共 \d 项参数不同/);

    // 只看不同项 hides the rows the runs share.
    fireEvent.click(screen.getByTestId('compare-only-diff'));
    await waitFor(() => expect(screen.getAllByTestId('compare-row').every((r) => r.getAttribute('data-differs') === 'true')).toBe(true));
    expect(screen.getAllByTestId('compare-row').map((r) => r.getAttribute('data-key'))).toContain('env');
  });

  it('at most five runs can be picked: the sixth check box is disabled', async () => {
    for (let i = 1; i <= 6; i++) backend.put(task(String(i), { name: `运行${i}`, createTime: 1_700_000_000_000 + i }));
    renderTraining('/training');
    await waitFor(() => expect(screen.getAllByTestId('training-row')).toHaveLength(6));
    const boxes = screen.getAllByTestId('training-row').map((r) => within(r).getByRole('checkbox') as HTMLInputElement);
    for (const b of boxes.slice(0, 5)) fireEvent.click(b);
    expect(boxes[5]!.disabled).toBe(true);
    expect(screen.getByTestId('training-compare').textContent).toContain('对比（5）');
  });

  it("shows the server's refusal in place: runs of different types", async () => {
    sweep();
    renderTraining('/training/compare?ids=1,9');
    const err = await screen.findByTestId('compare-error');
    expect(err.textContent).toContain('无法对比这些任务');
    expect(err.textContent).toContain('只能对比同一类型的任务');
  });

  it('a comparison without two ids says how to pick them', async () => {
    renderTraining('/training/compare?ids=1');
    expect(await screen.findByText('请在任务列表中勾选 2–5 个同类型的任务进行对比')).toBeTruthy();
    expect(backend.callsTo('/tasks/action/compare', 'POST')).toHaveLength(0);
  });
});

describe('compare-view', () => {
  it('env lines that differ are the ones not in every run; charts group by scalar', () => {
    expect([...differingLines(['A=1\nB=2', 'A=1\nB=3', 'A=1'])]).toEqual(['B=2', 'B=3']);
    const runs: ComparedTask[] = [
      { ...task('a', { name: 'x' }), metrics: [{ step: 1, loss: 1 }], metricsTruncated: false },
      { ...task('b', { name: 'x' }), metrics: [{ loss: 2 }, { loss: 1, acc: 0.5 }], metricsTruncated: false },
    ];
    expect(metricCharts(runs)).toEqual([
      { metric: 'loss', lines: [{ run: 0, name: '1. x', data: [[1, 1]] }, { run: 1, name: '2. x', data: [[0, 2], [1, 1]] }] },
      { metric: 'acc', lines: [{ run: 1, name: '2. x', data: [[1, 0.5]] }] },
    ]);
    const rows = compareRows(runs, (s) => s, 0);
    expect(rows.find((r) => r.key === 'command')).toMatchObject({ values: ['python train.py', 'python train.py'], differs: false });
  });
});
