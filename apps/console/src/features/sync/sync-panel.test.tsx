import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { SyncPanel } from './sync-panel';
import { createFakeSync, syncJob } from './test/fake-sync';

const MB = 1024 * 1024;
let fake: ReturnType<typeof createFakeSync>;
let client: QueryClient;

const row = (id: string) => document.querySelector(`[data-testid="sync-row"][data-id="${id}"]`) as HTMLElement;
const rowIds = () => [...document.querySelectorAll('[data-testid="sync-row"]')].map((r) => r.getAttribute('data-id'));
const pageCalls = () => fake.callsTo('/syncs/action/page').length;

function renderPanel() {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <SyncPanel />
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  fake = createFakeSync([
    syncJob('a', { state: 'RUNNING', createTime: 2, bytesDone: MB / 2, bytesTotal: MB, filesDone: 2, filesTotal: 4, message: '连接中断，5 秒后重试', retries: 1 }),
    syncJob('q', { state: 'QUEUED', createTime: 3 }),
    syncJob('s', { state: 'SUCCEEDED', createTime: 1, finishTime: 10, bytesDone: 2048, bytesTotal: 2048, filesDone: 1, filesTotal: 1 }),
    syncJob('f', { state: 'FAILED', createTime: 0, finishTime: 20, bytesDone: 10, bytesTotal: 2048, message: '目标存储空间不足' }),
  ]);
  vi.stubGlobal('fetch', vi.fn(fake.fetch));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('SyncPanel', () => {
  it('lists the active jobs first, then recent finished ones, with progress, bytes, files, state and message', async () => {
    renderPanel();
    await waitFor(() => expect(rowIds()).toEqual(['a', 'q', 'f', 's']));
    expect(fake.callsTo('/syncs/action/page').map((c) => c.body)).toEqual(
      expect.arrayContaining([
        { scope: 'active', pageNum: 1, pageSize: 5 },
        { scope: 'all', pageNum: 1, pageSize: 20 },
      ]),
    );
    const a = row('a');
    expect(a.getAttribute('data-state')).toBe('RUNNING');
    expect(a.getAttribute('data-name')).toBe('a');
    expect(within(a).getByTestId('sync-state').textContent).toBe('同步中');
    expect(within(a).getByTestId('sync-route').textContent).toBe('源 深圳算力分中心：/data/a → 目标 广州算力分中心：/inbox/a');
    expect(within(a).getByText('50%')).toBeTruthy();
    expect(within(a).getByTestId('sync-bytes').textContent).toBe('0.50 MB / 1.00 MB · 文件 2 / 4 · 已自动续传 1 次');
    expect(within(a).getByTestId('sync-message').textContent).toBe('连接中断，5 秒后重试');
    expect(within(row('q')).getByTestId('sync-state').textContent).toBe('排队中');
    expect(within(row('q')).getByTestId('sync-bytes').textContent).toBe('等待开始');
    expect(within(row('s')).getByTestId('sync-state').textContent).toBe('已完成');
    expect(within(row('s')).getByText('100%')).toBeTruthy();
    expect(within(row('f')).getByTestId('sync-state').textContent).toBe('失败');
    expect(within(row('f')).getByTestId('sync-message').textContent).toBe('目标存储空间不足');
    // 取消 only while a job can still be stopped.
    expect(['a', 'q', 'f', 's'].map((id) => Boolean(within(row(id)).queryByTestId('sync-cancel')))).toEqual([true, true, false, false]);
  });

  it('names a version the platform syncs for a task by its label, between the centers', async () => {
    fake = createFakeSync([syncJob('v', { kind: 'version', label: '数据集「MNIST」v1', sourcePath: '/as1/v1', targetDir: '/as1', targetPath: '/as1/v1', bytesDone: MB, bytesTotal: 2 * MB })]);
    vi.stubGlobal('fetch', vi.fn(fake.fetch));
    renderPanel();
    await waitFor(() => expect(rowIds()).toEqual(['v']));
    expect(row('v').getAttribute('data-name')).toBe('数据集「MNIST」v1');
    expect(within(row('v')).getByTestId('sync-route').textContent).toBe('源 深圳算力分中心 → 目标 广州算力分中心（供任务挂载）');
  });

  it('follows sync.changed: progress without a request, a new state refetches the lists', async () => {
    renderPanel();
    await waitFor(() => expect(rowIds()).toEqual(['a', 'q', 'f', 's']));
    const before = pageCalls();
    const a = fake.jobs[0];
    applyLiveEvent(client, { businessType: 'sync.changed', data: { ...a, bytesDone: (3 * MB) / 4, filesDone: 3, message: '' } });
    await waitFor(() => expect(within(row('a')).getByText('75%')).toBeTruthy());
    expect(within(row('a')).getByTestId('sync-bytes').textContent).toContain('0.75 MB / 1.00 MB · 文件 3 / 4');
    expect(within(row('a')).queryByTestId('sync-message')).toBeNull();
    expect(pageCalls()).toBe(before);

    Object.assign(a, { state: 'SUCCEEDED', bytesDone: MB, filesDone: 4, finishTime: 30, message: '' });
    applyLiveEvent(client, { businessType: 'sync.changed', data: { ...a } });
    await waitFor(() => expect(row('a').getAttribute('data-state')).toBe('SUCCEEDED'));
    expect(within(row('a')).getByTestId('sync-state').textContent).toBe('已完成');
    await waitFor(() => expect(pageCalls()).toBeGreaterThan(before));
    // Now a finished one: after the still queued job, the newest finished first.
    await waitFor(() => expect(rowIds()).toEqual(['q', 'a', 'f', 's']));
  });

  it('取消 asks first, then posts the cancel; the job reads 已取消', async () => {
    renderPanel();
    await waitFor(() => expect(row('a')).toBeTruthy());
    fireEvent.click(within(row('a')).getByTestId('sync-cancel'));
    expect(await screen.findByText('确定取消该同步任务吗？')).toBeTruthy();
    expect(fake.callsTo('/cancel')).toHaveLength(0);
    fireEvent.click(screen.getByTestId('sync-cancel-ok'));
    await waitFor(() => expect(fake.callsTo('/syncs/a/cancel')).toHaveLength(1));
    await waitFor(() => expect(row('a').getAttribute('data-state')).toBe('CANCELLED'));
    expect(within(row('a')).getByTestId('sync-state').textContent).toBe('已取消');
    expect(within(row('a')).queryByTestId('sync-cancel')).toBeNull();
  });

  it('says so in Chinese when there is nothing, and labels its controls in Chinese only', async () => {
    fake.jobs.length = 0;
    renderPanel();
    expect(await screen.findByText('暂无跨中心同步任务', { exact: false })).toBeTruthy();
    cleanup();
    fake = createFakeSync([syncJob('a', { sourcePath: '/数据/训练集', targetPath: '/训练集' }), syncJob('s', { state: 'SUCCEEDED', sourcePath: '/模型文件', targetPath: '/模型文件' })]);
    vi.stubGlobal('fetch', vi.fn(fake.fetch));
    renderPanel();
    await waitFor(() => expect(row('s')).toBeTruthy());
    const labels = [...screen.getByTestId('sync-panel').querySelectorAll('button, [role="progressbar"], [role="list"]')].flatMap((el) =>
      [el.getAttribute('aria-label'), el.getAttribute('title')].filter((v): v is string => v !== null),
    );
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.filter((l) => /[A-Za-z]/.test(l))).toEqual([]);
    // Sizes keep their units (B, KB, MB, as the upload panel shows them); nothing else is Latin.
    expect(screen.getByTestId('sync-panel').textContent!.replace(/\d+(\.\d+)? (B|KB|MB|GB|TB)\b/g, '')).not.toMatch(/[A-Za-z]/);
  });
});
