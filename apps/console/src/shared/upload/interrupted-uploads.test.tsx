/**
 * 中断的上传 in the header's task panel (issue 22 item 3): after a reload the panel lists what the file services
 * still hold, 继续 takes the same file again and resumes that staged upload, 放弃 removes it. A fake gateway
 * and file service behind `fetch`; the real routes have their api test (file-service/staged.api.test.ts).
 */
import { FOUNDATION_BASE, SYNC_BASE, USER_BASE, type ClusterAccount, type StagedUpload, type SubCenter } from '@suanli/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { render } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryClient } from '../../app/query-client';
import { TaskPanelButton } from '../../app/layout/task-panel';
import { setupPageTests } from '../../test/page-test';
import { confirmPop } from '../../test/ui';
import { configureUploads, resetUploads, useUploadStore } from './store';
import type { UploadOptions, UploadResult } from './uploader';

const CENTERS: SubCenter[] = [
  { id: 'sz', name: '深圳算力分中心', region: '广东·深圳', description: '', status: 'online', fileServiceUrl: 'http://fs.test/file-service/sz', cardTypes: [] },
  { id: 'gz', name: '广州算力分中心', region: '广东·广州', description: '', status: 'online', fileServiceUrl: 'http://fs.test/file-service/gz', cardTypes: [] },
  { id: 'bj', name: '北京算力分中心', region: '北京', description: '', status: 'online', fileServiceUrl: 'http://fs.test/file-service/bj', cardTypes: [] },
];
const account = (subCenterId: string, status: ClusterAccount['status'] = 'active'): ClusterAccount => ({
  subCenterId,
  subCenterName: subCenterId,
  account: `alice-${subCenterId}`,
  uid: 1000,
  homeDir: `/home/alice-${subCenterId}`,
  status,
});
const MiB = 1024 * 1024;
const staged = (identifier: string, patch: Partial<StagedUpload> = {}): StagedUpload => ({
  identifier,
  filename: `${identifier}.bin`,
  path: '/实验',
  totalSize: 20 * MiB,
  chunkSize: 8 * MiB,
  totalChunks: 3,
  uploadedChunks: 1,
  uploadedBytes: 8 * MiB,
  startedAt: 1_700_000_000_000,
  ...patch,
});

function createFake() {
  const accounts: ClusterAccount[] = [account('sz'), account('gz'), account('bj', 'disabled')];
  const held: Record<string, StagedUpload[]> = { sz: [], gz: [], bj: [] };
  const down = new Set<string>();
  const calls: { method: string; path: string; body: unknown }[] = [];
  const env = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path: url.pathname, body });
    if (url.pathname === `${USER_BASE}/agent/user/get`) return env(accounts);
    if (url.pathname === `${FOUNDATION_BASE}/sub-centers/action/list`) return env(CENTERS);
    if (url.pathname === `${SYNC_BASE}/syncs/action/page`) return env({ list: [], total: 0, pageNum: 1, pageSize: 20 });
    const fs = /^\/file-service\/(\w+)\/api\/v1\/file\/chunk\/staged$/.exec(url.pathname);
    if (url.host === 'fs.test' && fs) {
      const center = fs[1];
      if (down.has(center)) return new Response('bad gateway', { status: 502 });
      if (method === 'GET') return env(held[center]);
      const i = held[center].findIndex((u) => u.identifier === body.identifier);
      if (i < 0) return env(null, 1301, '文件不存在：没有这个未完成的上传');
      held[center].splice(i, 1);
      return env(null);
    }
    return env(null, 1205, '查询结果为空');
  };
  const callsTo = (path: string, method = 'GET') => calls.filter((c) => c.method === method && c.path === path);
  return { fetch, accounts, held, down, calls, callsTo };
}

let fake: ReturnType<typeof createFake>;
setupPageTests(() => (fake = createFake()));

let uploads: UploadOptions[];
let finish: (() => void) | undefined;
beforeEach(() => {
  resetUploads();
  uploads = [];
  configureUploads({
    hash: null,
    upload: (opts) =>
      new Promise<UploadResult>((resolve) => {
        uploads.push(opts);
        finish = () => resolve({ entry: null, instant: false, sentChunks: [2, 3], identifier: opts.identifier ?? '' });
      }),
  });
});
afterEach(() => resetUploads());

function open() {
  render(
    <QueryClientProvider client={queryClient}>
      <TaskPanelButton />
    </QueryClientProvider>,
  );
}
const rows = () => [...document.querySelectorAll<HTMLElement>('[data-testid="upload-interrupted-row"]')];
const row = (name: string) => document.querySelector<HTMLElement>(`[data-testid="upload-interrupted-row"][data-name="${name}"]`)!;
const pickFile = (file: File) => fireEvent.change(screen.getByTestId('upload-interrupted-input'), { target: { files: [file] } });

describe('中断的上传', () => {
  it('lists what each center with an account still holds — folder, name, size, how much arrived — and marks the button', async () => {
    fake.held.sz.push(staged('模型权重', { filename: '模型权重.safetensors', path: '/实验/第二轮', uploadedBytes: 8 * MiB }));
    fake.held.gz.push(staged('语料', { filename: '语料.tar', path: '/', totalSize: 100 * MiB, uploadedBytes: 75 * MiB }));
    open();
    // Interrupted uploads alone: a dot, no count (nothing is running).
    await waitFor(() => expect(document.querySelector('.ant-badge-dot')).toBeTruthy());
    expect(screen.getByTestId('upload-panel-button').getAttribute('title')).toBe('上传与同步任务（2 个中断的上传）');
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    const section = await screen.findByTestId('upload-interrupted');
    expect(within(section).getByText('中断的上传（2）')).toBeTruthy();
    await waitFor(() => expect(rows().map((r) => r.getAttribute('data-name'))).toEqual(['模型权重.safetensors', '语料.tar']));
    expect(row('模型权重.safetensors').textContent).toContain('深圳算力分中心：/实验/第二轮');
    expect(within(row('模型权重.safetensors')).getByTestId('upload-interrupted-progress').textContent).toBe('已上传 8.00 MB / 20.00 MB');
    expect(row('语料.tar').textContent).toContain('广州算力分中心：/');
    expect(within(row('语料.tar')).getByTestId('upload-interrupted-progress').textContent).toBe('已上传 75.00 MB / 100.00 MB');
    // Only centers with an active account are asked: asking another would create an account there.
    expect(fake.callsTo('/file-service/bj/api/v1/file/chunk/staged')).toEqual([]);
    // The empty table below still says there are no (running) tasks.
    expect(screen.getByText(/^暂无上传任务/)).toBeTruthy();
  });

  it('继续 with another file says why in Chinese; with the same file it resumes that staged upload into its folder', async () => {
    fake.held.sz.push(staged('abc123def456', { filename: '模型权重.safetensors', path: '/实验/第二轮', totalSize: 20 * MiB }));
    open();
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    await waitFor(() => expect(rows()).toHaveLength(1));

    fireEvent.click(within(row('模型权重.safetensors')).getByTestId('upload-interrupted-continue'));
    pickFile(new File([new Uint8Array(10)], '模型权重.safetensors'));
    expect((await screen.findByTestId('upload-interrupted-mismatch')).textContent).toBe(
      '所选文件“模型权重.safetensors”（10 B）与中断的上传“模型权重.safetensors”（20.00 MB）不一致，请选择同一文件',
    );
    fireEvent.click(within(row('模型权重.safetensors')).getByTestId('upload-interrupted-continue'));
    pickFile(new File([new Uint8Array(20 * MiB)], '模型权重 (1).safetensors'));
    expect((await screen.findByTestId('upload-interrupted-mismatch')).textContent).toContain('“模型权重 (1).safetensors”');
    expect(useUploadStore.getState().tasks).toEqual([]);

    // The same name in another Unicode spelling is the same name.
    const same = new File([new Uint8Array(20 * MiB)], '模型权重.safetensors'.normalize('NFD'));
    fireEvent.click(within(row('模型权重.safetensors')).getByTestId('upload-interrupted-continue'));
    pickFile(same);
    await waitFor(() => expect(uploads).toHaveLength(1));
    expect(uploads[0]).toMatchObject({ baseUrl: 'http://fs.test/file-service/sz', targetDir: '/实验/第二轮', identifier: 'abc123def456', file: same });
    expect(screen.queryByTestId('upload-interrupted-mismatch')).toBeNull();
    // Now it is a task of this browser: listed once, as the running upload.
    const task = await screen.findByText('模型权重.safetensors'.normalize('NFD'));
    expect(task.closest('[data-testid="upload-row"]')!.getAttribute('data-status')).toBe('uploading');
    await waitFor(() => expect(rows()).toHaveLength(0));

    // Done: the service holds nothing more, and the list is asked again.
    const before = fake.callsTo('/file-service/sz/api/v1/file/chunk/staged').length;
    fake.held.sz.length = 0;
    act(() => finish!());
    await waitFor(() => expect(document.querySelector('[data-testid="upload-row"]')!.getAttribute('data-status')).toBe('success'));
    await waitFor(() => expect(fake.callsTo('/file-service/sz/api/v1/file/chunk/staged').length).toBeGreaterThan(before));
    expect(screen.queryByTestId('upload-interrupted')).toBeNull();
  });

  it('继续 of an upload into a team\'s folder resumes it there (the space sent again), and says where it goes', async () => {
    fake.held.sz.push(staged('team000upload', { filename: '共享.bin', path: '/结果', totalSize: 3 * MiB, space: 'team:t1' }));
    open();
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(row('共享.bin').textContent).toContain('团队空间');
    fireEvent.click(within(row('共享.bin')).getByTestId('upload-interrupted-continue'));
    pickFile(new File([new Uint8Array(3 * MiB)], '共享.bin'));
    await waitFor(() => expect(uploads).toHaveLength(1));
    expect(uploads[0]).toMatchObject({ targetDir: '/结果', identifier: 'team000upload', space: 'team:t1' });
  });

  it('放弃 asks first, then removes the staged chunks on that center', async () => {
    fake.held.sz.push(staged('keep-this-one', { filename: 'a.bin' }), staged('drop-this-one', { filename: 'b.bin' }));
    open();
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(within(row('b.bin')).getByTestId('upload-interrupted-discard'));
    await confirmPop('服务器上已收到的部分将被删除');
    await waitFor(() => expect(rows().map((r) => r.getAttribute('data-name'))).toEqual(['a.bin']));
    expect(fake.callsTo('/file-service/sz/api/v1/file/chunk/staged', 'DELETE').map((c) => c.body)).toEqual([{ identifier: 'drop-this-one' }]);
    expect(fake.held.sz.map((u) => u.identifier)).toEqual(['keep-this-one']);
  });

  it('an upload staged before names were recorded can only be discarded; a center that does not answer is named', async () => {
    fake.held.sz.push(staged('old-staging', { filename: undefined, path: undefined }));
    fake.down.add('gz');
    open();
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0].textContent).toContain('（未记录文件名）');
    expect(rows()[0].textContent).toContain('深圳算力分中心：（未记录目标文件夹）');
    expect((within(rows()[0]).getByTestId('upload-interrupted-continue') as HTMLButtonElement).disabled).toBe(true);
    expect((await screen.findByTestId('upload-interrupted-unreachable')).textContent).toBe('暂时无法读取广州算力分中心的中断上传，请稍后重新打开本面板');
    // Silent: no error toast for a center that is down.
    expect(document.querySelector('.ant-message-error')).toBeNull();
  });

  it('shows nothing extra when nothing was interrupted', async () => {
    open();
    fireEvent.click(screen.getByTestId('upload-panel-button'));
    await screen.findByTestId('upload-panel');
    await waitFor(() => expect(fake.callsTo('/file-service/gz/api/v1/file/chunk/staged').length).toBeGreaterThan(0));
    expect(screen.queryByTestId('upload-interrupted')).toBeNull();
    expect(document.querySelector('.ant-badge-dot')).toBeNull();
  });
});
