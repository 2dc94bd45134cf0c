import { UPLOAD_PANEL_WIDTH, UPLOAD_REFRESH_WARNING } from '@suanli/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { FileEntry, SubCenter } from '@suanli/contracts';
import { App } from 'antd';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SyncModal } from '../../features/sync/sync-modal';
import { createFakeSync, syncJob } from '../../features/sync/test/fake-sync';
import { configureUploads, resetUploads, useUploadStore, type UploadTask } from '../../shared/upload/store';
import { applyLiveEvent } from '../live-updates';
import { TaskPanelButton } from './task-panel';

const task = (id: string, patch: Partial<UploadTask> = {}): UploadTask => ({
  id,
  name: `${id}.bin`,
  path: '/data',
  size: 2048,
  progress: 0,
  status: 'waiting',
  ...patch,
});

let fake: ReturnType<typeof createFakeSync>;
let client: QueryClient;

function renderButton() {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <TaskPanelButton />
    </QueryClientProvider>,
  );
}
const badge = () => screen.getByTestId('upload-panel-button').closest('.ant-badge')?.textContent ?? '';

beforeEach(() => {
  resetUploads();
  fake = createFakeSync();
  vi.stubGlobal('fetch', vi.fn(fake.fetch));
});
afterEach(() => {
  cleanup();
  resetUploads();
  vi.unstubAllGlobals();
});

describe('TaskPanelButton: uploads', () => {
  it('stays closed at first, opens by itself when the task count changes, and shows the refresh warning', async () => {
    renderButton();
    expect(screen.queryByTestId('upload-panel')).toBeNull();

    act(() => useUploadStore.getState().add(task('a', { status: 'uploading', progress: 12 })));
    const panel = await screen.findByTestId('upload-panel');
    expect(panel.style.width).toBe(UPLOAD_PANEL_WIDTH);
    expect(within(panel).getByText(UPLOAD_REFRESH_WARNING)).toBeTruthy();
    // What is true: leaving interrupts, the same file resumes; nothing is cancelled or cleared on the server.
    expect(panel.textContent).toContain('从中断处继续');
    expect(panel.textContent).not.toMatch(/取消当前任务|清除所有记录/);
    expect(within(panel).getByText('12%')).toBeTruthy();
  });

  it('re-opens when a task is removed after the user closed it', async () => {
    act(() => useUploadStore.getState().add([task('a'), task('b', { status: 'success' })]));
    renderButton();
    expect(screen.queryByTestId('upload-panel')).toBeNull(); // mounting is not a change
    act(() => useUploadStore.getState().remove('b'));
    expect(await screen.findByTestId('upload-panel')).toBeTruthy();
  });

  it('a task the user cancels in the panel reads 已取消', async () => {
    configureUploads({ upload: () => new Promise(() => {}), hash: null });
    renderButton();
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
    renderButton();
    expect(badge()).toContain('2');
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    expect(await screen.findByTestId('upload-panel')).toBeTruthy();
  });

  it('offers 清除已完成 on the upload tab while a finished upload is listed', async () => {
    act(() => useUploadStore.getState().add([task('a', { status: 'success' }), task('b')]));
    renderButton();
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    fireEvent.click(await screen.findByTestId('upload-clear-finished'));
    await waitFor(() => expect(useUploadStore.getState().tasks.map((t) => t.id)).toEqual(['b']));
  });
});

describe('TaskPanelButton: 跨中心同步', () => {
  it('counts active sync jobs in the badge and shows them on the 跨中心同步 tab', async () => {
    fake.jobs.push(syncJob('r', { state: 'RUNNING', bytesDone: 512, bytesTotal: 2048 }), syncJob('done', { state: 'SUCCEEDED', createTime: 0 }));
    act(() => useUploadStore.getState().add(task('u', { status: 'uploading' })));
    renderButton();
    await waitFor(() => expect(badge()).toContain('2')); // one upload + one sync
    // Only the active list is read until the panel shows the sync tab.
    expect(fake.callsTo('/syncs/action/page').map((c) => (c.body as { scope: string }).scope)).toEqual(['active']);
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    await screen.findByTestId('upload-panel');
    expect(screen.getByTestId('task-tab-sync').textContent).toBe('跨中心同步（1）');
    fireEvent.click(screen.getByTestId('task-tab-sync'));
    await waitFor(() => expect([...document.querySelectorAll('[data-testid="sync-row"]')].map((r) => r.getAttribute('data-state'))).toEqual(['RUNNING', 'SUCCEEDED']));
    expect(within(screen.getByTestId('sync-panel')).getByText('25%')).toBeTruthy();
    // The tabs and the button speak Chinese.
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['上传任务', '跨中心同步（1）']);
    expect(screen.getByTestId('upload-panel-button').getAttribute('aria-label')).toBe('任务面板');
  });

  it('opens by itself on the 跨中心同步 tab when a new job appears (not for the jobs already there)', async () => {
    fake.jobs.push(syncJob('old', { state: 'RUNNING' }));
    renderButton();
    await waitFor(() => expect(badge()).toContain('1'));
    expect(screen.queryByTestId('sync-panel')).toBeNull();

    // A job made on the storage page: the socket says so, the active list is refetched.
    const job = syncJob('new', { state: 'QUEUED', createTime: 1_800_000_000_000 });
    fake.jobs.push(job);
    act(() => applyLiveEvent(client, { businessType: 'sync.changed', data: job }));
    await waitFor(() => expect(document.querySelector('[data-testid="sync-row"][data-id="new"]')).toBeTruthy());
    expect(screen.getByTestId('sync-panel')).toBeTruthy();
    expect(screen.getByRole('tab', { selected: true }).textContent).toBe('跨中心同步（2）');
    expect(badge()).toContain('2');
  });

  it('opens on the 跨中心同步 tab for a job made in the sync dialog before the active list first answered', async () => {
    // The active list's first answer waits until the job exists: it lists the new job among "what was there".
    let answer!: () => void;
    const firstAnswer = new Promise<void>((resolve) => (answer = resolve));
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
        const url = String(input);
        if (url.endsWith('/syncs') && init.method === 'POST') {
          const job = syncJob('made', { state: 'QUEUED', sourcePath: '/data/语料库' });
          fake.jobs.push(job);
          return new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data: job }), { headers: { 'content-type': 'application/json' } });
        }
        if (url.endsWith('/syncs/action/page')) await firstAnswer;
        return fake.fetch(input, init);
      }),
    );
    const center = (id: string, name: string): SubCenter => ({ id, name, region: '', description: '', status: 'online', fileServiceUrl: '', cardTypes: [] });
    const entry = { id: 'x', name: '语料库', path: '/data/语料库', type: 'dir', size: 0 } as FileEntry;
    client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <App>
          <TaskPanelButton />
          <SyncModal source={center('sz', '深圳算力分中心')} centers={[center('sz', '深圳算力分中心'), center('gz', '广州算力分中心')]} entry={entry} onClose={() => {}} />
        </App>
      </QueryClientProvider>,
    );
    fireEvent.click(await screen.findByTestId('sync-ok'));
    await waitFor(() => expect(fake.jobs.map((j) => j.id)).toEqual(['made']));
    act(() => answer());
    await waitFor(() => expect(document.querySelector('[data-testid="sync-row"][data-id="made"]')).toBeTruthy());
    expect(screen.getByRole('tab', { selected: true }).textContent).toBe('跨中心同步（1）');
  });
});
