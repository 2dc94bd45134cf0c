import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeSlurm, task } from './test/fake-slurm';
import { renderSlurm } from './test/render';
import { setupPageTests } from '../../test/page-test';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

const row = (key: string) => screen.getAllByTestId('compare-row').find((r) => r.getAttribute('data-key') === key);
const listRow = (id: string) => screen.getAllByTestId('slurm-row').find((r) => r.getAttribute('data-id') === id)!;

describe('Slurm tasks: 任务对比 (issue 23 item 4)', () => {
  it('picks two custom scripts (a template task cannot join them) and compares their scripts and resources', async () => {
    backend.put(task('1', { name: '脚本 80M', type: 'custom', command: '#!/bin/bash\n#SBATCH --mem=80M\npython3 grow.py\n', state: 'FAILED', exitCode: 137, createTime: 1_700_000_300_000 }));
    backend.put(task('2', { name: '脚本 1G', type: 'custom', command: '#!/bin/bash\n#SBATCH --mem=1024M\npython3 grow.py\n', state: 'SUCCEEDED', exitCode: 0, createTime: 1_700_000_200_000 }));
    backend.put(task('3', { name: '模板作业', type: 'template', createTime: 1_700_000_100_000 }));
    const router = renderSlurm('/slurm-task');
    await waitFor(() => expect(screen.getAllByTestId('slurm-row')).toHaveLength(3));
    fireEvent.click(within(listRow('1')).getByRole('checkbox'));
    // Once a custom script is picked, a template task cannot be (the server would answer 2015).
    expect((within(listRow('3')).getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByTestId('slurm-compare') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(listRow('2')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('slurm-compare'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/compare'));
    expect(router.state.location.search).toBe('?ids=1,2');

    const page = await screen.findByTestId('compare-page');
    expect(page.getAttribute('data-count')).toBe('2');
    expect(row('command')!.getAttribute('data-differs')).toBe('true');
    expect(row('command')!.textContent).toContain('作业脚本');
    expect(row('command')!.textContent).toContain('#SBATCH --mem=1024M');
    // Only the lines that differ are marked; the shared ones are not.
    expect([...row('command')!.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['#SBATCH --mem=80M', '#SBATCH --mem=1024M']);
    // Every run has its own creation time: never counted as a difference.
    expect(row('createTime')!.getAttribute('data-differs')).toBe('false');
    expect(row('cards')!.textContent).toContain('资源');
    // Slurm tasks have no image or mounts to compare; no curves were written.
    expect(row('image')).toBeUndefined();
    expect(row('mounts')).toBeUndefined();
    expect(screen.getByTestId('compare-curves').textContent).toContain('这些任务都没有训练曲线数据。');
    expect(screen.getByText('2 个自定义脚本任务：训练曲线叠加显示，参数逐项对照，不同之处以底色标出。')).toBeTruthy();
    const head = screen.getByTestId('compare-params').querySelector('thead')!;
    expect(head.querySelector('[data-testid=compare-run]')!.getAttribute('href')).toBe('/slurm-task/detail/custom/1');
  });
});
