import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CANCELLED_MESSAGE, resetUploads, type UploadTask } from './store';
import { UploadTaskTable } from './upload-panel';

const task = (id: string, patch: Partial<UploadTask> = {}): UploadTask => ({
  id,
  name: `${id}.bin`,
  path: '/data',
  size: 2048,
  progress: 0,
  status: 'waiting',
  ...patch,
});

beforeEach(() => resetUploads());
afterEach(() => {
  cleanup();
  resetUploads();
});

describe('UploadTaskTable', () => {
  it('draws the four columns and each status: 等待中, 失败, 成功 and a progress bar with %', () => {
    render(
      <UploadTaskTable
        tasks={[
          task('w'),
          task('e', { status: 'error', error: '存储空间不足' }),
          task('s', { status: 'success', progress: 100, size: 5 }),
          task('u', { status: 'uploading', progress: 45, size: 200 * 1024 }),
        ]}
      />,
    );
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['文件名', '目标路径', '文件大小', '状态']);

    const row = (name: string) => document.querySelector(`[data-testid="upload-row"][data-name="${name}"]`) as HTMLElement;
    expect(within(row('w.bin')).getByText('等待中')).toBeTruthy();
    expect(within(row('e.bin')).getByText('失败')).toBeTruthy();
    expect(within(row('s.bin')).getByText('成功')).toBeTruthy();
    expect(within(row('u.bin')).getByText('45%')).toBeTruthy();
    expect(row('u.bin').getAttribute('data-status')).toBe('uploading');
    expect(within(row('w.bin')).getByText('/data')).toBeTruthy();
    // formatFileSize from the contracts
    expect(within(row('w.bin')).getByText('2.00 KB')).toBeTruthy();
    expect(within(row('s.bin')).getByText('5 B')).toBeTruthy();
    expect(within(row('u.bin')).getByText('0.20 MB')).toBeTruthy();
  });

  it('shows a cancelled task as 已取消, not 失败, and still offers to resume it', () => {
    render(<UploadTaskTable tasks={[task('c', { status: 'error', error: CANCELLED_MESSAGE })]} onRetry={() => {}} />);
    const row = document.querySelector('[data-testid="upload-row"][data-name="c.bin"]') as HTMLElement;
    expect(within(row).getByText('已取消')).toBeTruthy();
    expect(within(row).queryByText('失败')).toBeNull();
    expect(within(row).getByTestId('upload-retry')).toBeTruthy();
  });

  it('offers retry on a failed row and cancel on a running or waiting one', () => {
    const onRetry = vi.fn();
    const onCancel = vi.fn();
    render(
      <UploadTaskTable
        tasks={[task('w'), task('e', { status: 'error' }), task('u', { status: 'uploading', progress: 3 })]}
        onRetry={onRetry}
        onCancel={onCancel}
      />,
    );
    const rows = document.querySelectorAll('[data-testid="upload-row"]');
    fireEvent.click(within(rows[1] as HTMLElement).getByTestId('upload-retry'));
    expect(onRetry).toHaveBeenCalledWith('e');
    fireEvent.click(within(rows[2] as HTMLElement).getByTestId('upload-cancel'));
    fireEvent.click(within(rows[0] as HTMLElement).getByTestId('upload-cancel'));
    expect(onCancel.mock.calls).toEqual([['u'], ['w']]);
    expect(within(rows[1] as HTMLElement).queryByTestId('upload-cancel')).toBeNull();
  });

  it('on a phone puts the target folder under the name instead of a column of its own (the panel is ~340 px)', () => {
    vi.stubGlobal('matchMedia', (query: string) => {
      const min = /min-width:\s*(\d+)px/.exec(query);
      const max = /max-width:\s*(\d+)px/.exec(query);
      const matches = (!min || 375 >= Number(min[1])) && (!max || 375 <= Number(max[1]));
      return { matches, media: query, addEventListener: () => {}, removeEventListener: () => {}, addListener: () => {}, removeListener: () => {} };
    });
    try {
      render(<UploadTaskTable tasks={[task('w', { path: '/实验/第二轮', centerName: '深圳算力分中心' })]} />);
      expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['文件名', '文件大小', '状态']);
      const row = document.querySelector('[data-testid="upload-row"][data-name="w.bin"]') as HTMLElement;
      expect(within(row).getByText('w.bin')).toBeTruthy();
      expect(within(row).getByText('/实验/第二轮')).toBeTruthy();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('says so in Chinese when there is nothing, and how an interrupted upload goes on (a reload empties the list)', () => {
    render(<UploadTaskTable tasks={[]} />);
    expect(screen.getByText(/^暂无上传任务/).textContent).toContain('重新选择同一文件上传到同一文件夹即可从中断处继续');
  });
});

// The header button around this panel (badge, opening by itself, the 跨中心同步 tab): app/layout/task-panel.test.tsx.
