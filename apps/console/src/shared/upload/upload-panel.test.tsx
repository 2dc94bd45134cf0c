import { UPLOAD_PANEL_WIDTH, UPLOAD_REFRESH_WARNING } from '@suanli/contracts';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CANCELLED_MESSAGE, configureUploads, resetUploads, useUploadStore, type UploadTask } from './store';
import { UploadPanelButton, UploadTaskTable } from './upload-panel';

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

  it('says so in Chinese when there is nothing', () => {
    render(<UploadTaskTable tasks={[]} />);
    expect(screen.getByText('暂无上传任务')).toBeTruthy();
  });
});

describe('UploadPanelButton', () => {
  it('stays closed at first, opens by itself when the task count changes, and shows the refresh warning', async () => {
    render(<UploadPanelButton />);
    expect(screen.queryByTestId('upload-panel')).toBeNull();

    act(() => useUploadStore.getState().add(task('a', { status: 'uploading', progress: 12 })));
    const panel = await screen.findByTestId('upload-panel');
    expect(panel.style.width).toBe(UPLOAD_PANEL_WIDTH);
    expect(within(panel).getByText(UPLOAD_REFRESH_WARNING)).toBeTruthy();
    expect(within(panel).getByText('12%')).toBeTruthy();
  });

  it('re-opens when a task is removed after the user closed it', async () => {
    act(() => useUploadStore.getState().add([task('a'), task('b', { status: 'success' })]));
    render(<UploadPanelButton />);
    expect(screen.queryByTestId('upload-panel')).toBeNull(); // mounting is not a change
    act(() => useUploadStore.getState().remove('b'));
    expect(await screen.findByTestId('upload-panel')).toBeTruthy();
  });

  it('a task the user cancels in the panel reads 已取消', async () => {
    configureUploads({ upload: () => new Promise(() => {}), hash: null });
    render(<UploadPanelButton />);
    act(() => {
      useUploadStore.getState().enqueue([{ file: new File(['abc'], 'notes.txt'), dir: '/' }], { baseUrl: 'http://fs.invalid', centerId: 'sz' });
    });
    const row = await screen.findByText('notes.txt').then((el) => el.closest('[data-testid="upload-row"]') as HTMLElement);
    fireEvent.click(within(row).getByTestId('upload-cancel'));
    expect(await within(row).findByText('已取消')).toBeTruthy();
    expect(within(row).queryByText('失败')).toBeNull();
  });

  it('opens on click and shows the running count as a badge', async () => {
    act(() => useUploadStore.getState().add([task('a'), task('b', { status: 'uploading' }), task('c', { status: 'error' })]));
    render(<UploadPanelButton />);
    const button = screen.getByTestId('upload-panel-button');
    expect(button.closest('.ant-badge')?.textContent).toContain('2');
    fireEvent.click(button);
    expect(await screen.findByTestId('upload-panel')).toBeTruthy();
  });
});
