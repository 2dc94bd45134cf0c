import { pathToId } from '@suanli/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../app/feedback';
import { configureUploads, useUploadStore } from '../../shared/upload';
import { resetUploads } from '../../shared/upload/store';
import { resetUploadRefreshes } from './hooks';
import { StorageDetailPage, StoragePage } from './routes';
import { createFakeBackend } from './test/fake-backend';

let backend: ReturnType<typeof createFakeBackend>;
let location = '';

function LocationProbe() {
  const l = useLocation();
  location = l.pathname + l.search;
  return null;
}

function renderAt(url: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[url]}>
          <LocationProbe />
          <Routes>
            <Route path="/storage" element={<StoragePage />} />
            <Route path="/storage/detail" element={<StorageDetailPage />} />
          </Routes>
        </MemoryRouter>
    </QueryClientProvider>,
  );
}

const row = (name: string) => document.querySelector(`[data-testid="storage-row"][data-name="${name}"]`) as HTMLElement | null;
const findRow = (name: string) => waitFor(() => expect(row(name)).toBeTruthy(), { timeout: 5000 }).then(() => row(name)!);
const lastBody = (route: string, method?: string) => backend.callsTo(route, method).at(-1)?.body as Record<string, unknown>;

beforeEach(() => {
  backend = createFakeBackend();
  backend.put('sz', '/docs', 'dir');
  backend.put('sz', '/docs/readme.md', 'file', 40);
  backend.put('sz', '/model.bin', 'file', 300 * 1024, 1_700_000_100_000);
  backend.put('sz', '/notes.txt', 'file', 5, 1_700_000_200_000);
  vi.stubGlobal('fetch', backend.fetch);
  window.localStorage.clear();
  resetUploads();
  configureUploads({ upload: () => new Promise(() => {}), hash: null });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  resetUploads();
  resetUploadRefreshes();
});

describe('StoragePage', () => {
  it('在此打开终端 opens Shell工具 on this center in the folder shown', async () => {
    renderAt('/storage?path=%2Fdocs');
    await findRow('readme.md');
    fireEvent.click(screen.getByTestId('storage-open-terminal'));
    expect(location).toBe('/slurm-template/eshell?center=sz&cwd=%2Fdocs');
  });

  it('lists the home folder of the first center with sizes, remembers the center, and opens folders', async () => {
    renderAt('/storage');
    const docs = await findRow('docs');
    expect(row('model.bin')!.textContent).toContain('0.29 MB');
    expect(row('notes.txt')!.textContent).toContain('5 B');
    expect(docs.getAttribute('data-type')).toBe('dir');
    expect(backend.callsTo('/directory', 'POST')[0].url.origin).toBe('http://fs.test');
    expect(window.localStorage.getItem('suanli.storage.center')).toBe('sz');
    expect(await screen.findByTestId('storage-usage')).toBeTruthy();

    fireEvent.click(within(docs).getByTestId('storage-open'));
    await findRow('readme.md');
    expect(location).toBe('/storage?path=%2Fdocs');
    expect(screen.getByTestId('storage-breadcrumb').textContent).toContain('docs');

    fireEvent.click(within(screen.getByTestId('storage-breadcrumb')).getByText('全部文件'));
    await findRow('model.bin');
    expect(location).toBe('/storage');
  });

  it('shows a symlink as a link (icon and detail), never as a file to preview', async () => {
    backend.put('sz', '/data-link', 'link', 12);
    renderAt('/storage');
    const link = await findRow('data-link');
    expect(link.getAttribute('data-type')).toBe('link');
    expect(within(link).getByTestId('storage-link-icon')).toBeTruthy();
    fireEvent.click(within(link).getByTestId('storage-open'));
    expect(await screen.findByText('符号链接（平台不会跟随，不能预览或下载）')).toBeTruthy();
    expect(backend.callsTo('/file/download', 'POST')).toEqual([]);
  });

  it('opens a file on its detail page with a text preview fetched by Range', async () => {
    renderAt('/storage');
    fireEvent.click(within(await findRow('notes.txt')).getByTestId('storage-open'));
    await waitFor(() => expect(location).toBe(`/storage/detail?center=sz&path=%2Fnotes.txt`));
    const preview = await screen.findByTestId('storage-preview');
    expect(preview.textContent).toBe('conte'); // 5 bytes: Range 0-4
    const download = backend.callsTo('/file/download').at(-1)!;
    expect(download.body).toEqual({ paths: ['/notes.txt'] });
    expect(screen.getByTestId('storage-detail').textContent).toContain('/notes.txt');
  });

  it('hands downloads to the browser through a ticket URL (no bytes in the page), batch and detail page alike', async () => {
    const clicked: { href: string; download: string | null }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.getAttribute('download') });
    });
    renderAt('/storage');
    fireEvent.click(within(await findRow('model.bin')).getByTestId('storage-row-download'));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(lastBody('/file/download/ticket')).toEqual({ paths: ['/model.bin'] });
    expect(clicked[0].href).toMatch(/^http:\/\/fs\.test\/file-service\/sz\/api\/v1\/file\/download\/t\/ticket-\d+$/);
    expect(clicked[0].download).toBe('');
    expect(await screen.findByText('model.bin 已开始下载，可在浏览器的下载列表中查看进度')).toBeTruthy();

    fireEvent.click(within(row('docs')!).getByRole('checkbox'));
    fireEvent.click(within(row('notes.txt')!).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('storage-download'));
    await waitFor(() => expect(clicked).toHaveLength(2));
    expect(lastBody('/file/download/ticket')).toEqual({ paths: ['/docs', '/notes.txt'] });
    // Announced under the name the file service saves it as (not 全部文件.zip).
    expect(await screen.findByText('docs等2个文件.zip 已开始下载，可在浏览器的下载列表中查看进度')).toBeTruthy();

    cleanup();
    renderAt('/storage/detail?center=sz&path=%2Fmodel.bin');
    await screen.findByTestId('storage-detail', undefined, { timeout: 5000 });
    fireEvent.click(screen.getByTestId('storage-detail-download'));
    await waitFor(() => expect(clicked).toHaveLength(3));
    expect(lastBody('/file/download/ticket')).toEqual({ paths: ['/model.bin'] });
    // Only the text preview reads bytes in JS; downloads never do.
    expect(backend.callsTo('/file/download', 'POST')).toHaveLength(0);
  }, 30_000);

  it('shows the refusal of a ticket as a Chinese toast and starts nothing', async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const error = vi.spyOn(toast, 'error');
    renderAt('/storage');
    const notes = await findRow('notes.txt');
    backend.trees.sz.delete('/notes.txt');
    fireEvent.click(within(notes).getByTestId('storage-row-download'));
    await waitFor(() => expect(error).toHaveBeenCalledWith('文件不存在：/notes.txt'));
    expect(click).not.toHaveBeenCalled();
  });

  it('sorts and searches on the server', async () => {
    renderAt('/storage');
    await findRow('docs');
    fireEvent.click(screen.getByText('大小'));
    await waitFor(() => expect(lastBody('/directory', 'POST')).toEqual({ sortField: 'size', sortOrder: 'ascend' }));

    const search = screen.getByPlaceholderText('搜索当前文件夹');
    fireEvent.change(search, { target: { value: 'note' } });
    fireEvent.keyDown(search, { key: 'Enter', keyCode: 13 });
    await waitFor(() => expect(lastBody('/directory', 'POST')).toMatchObject({ keyword: 'note' }));
    await waitFor(() => expect(row('model.bin')).toBeNull());
    expect(row('notes.txt')).toBeTruthy();
  });

  it('shows a Chinese empty state', async () => {
    backend.put('sz', '/empty', 'dir');
    renderAt('/storage?path=/empty');
    expect(await screen.findByText('此文件夹为空', { exact: false })).toBeTruthy();
  });

  it('creates a folder through the dialog', async () => {
    renderAt('/storage');
    await findRow('docs');
    fireEvent.click(screen.getByTestId('storage-mkdir'));
    const input = await screen.findByTestId('storage-name-input');
    fireEvent.change(input, { target: { value: '实验数据' } });
    fireEvent.click(screen.getByTestId('storage-modal-ok'));
    await findRow('实验数据');
    const call = backend.callsTo(`/directory/${pathToId('/')}`, 'POST')[0];
    expect(call.body).toEqual({ name: '实验数据' });
  });

  it('refuses a bad folder name under the field, with no uncaught error and no request', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      renderAt('/storage');
      await findRow('docs');
      fireEvent.click(screen.getByTestId('storage-mkdir'));
      const input = await screen.findByTestId('storage-name-input');
      fireEvent.change(input, { target: { value: '..' } });
      fireEvent.click(screen.getByTestId('storage-modal-ok'));
      expect(await screen.findByText('名称不能为 . 或 ..', undefined, { timeout: 5000 })).toBeTruthy();
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
      expect(backend.callsTo(`/directory/${pathToId('/')}`, 'POST')).toHaveLength(0);
      expect(screen.getByTestId('storage-name-input')).toBeTruthy(); // the dialog stays for a correction
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 30_000);

  it('says once, on the page, why a folder from the URL cannot be read', async () => {
    const error = vi.spyOn(toast, 'error');
    renderAt('/storage?path=/nope');
    expect(await screen.findByText('目录不存在：/nope', undefined, { timeout: 5000 })).toBeTruthy();
    expect(screen.getByText('无法读取该文件夹')).toBeTruthy();
    expect(screen.getAllByText(/目录不存在/)).toHaveLength(1);
    expect(error).not.toHaveBeenCalled();
  }, 30_000);

  it('deletes the selection after confirmation', async () => {
    renderAt('/storage');
    const notes = await findRow('notes.txt');
    fireEvent.click(within(notes).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('storage-delete'));
    fireEvent.click(await screen.findByTestId('storage-confirm-ok'));
    await waitFor(() => expect(row('notes.txt')).toBeNull());
    expect(lastBody('/file', 'DELETE')).toEqual({ paths: ['/notes.txt'] });
  });

  it('renames a row', async () => {
    renderAt('/storage');
    fireEvent.click(within(await findRow('notes.txt')).getByTestId('storage-rename'));
    const input = await screen.findByTestId('storage-name-input');
    await waitFor(() => expect((input as HTMLInputElement).value).toBe('notes.txt'));
    fireEvent.change(input, { target: { value: 'todo.txt' } });
    fireEvent.click(screen.getByTestId('storage-modal-ok'));
    await findRow('todo.txt');
    expect(lastBody('/file/rename')).toEqual({ path: '/notes.txt', newName: 'todo.txt' });
  });

  it.each([
    ['upload-conflict-keep', ['notes (1).txt', 'new.csv']],
    ['upload-conflict-overwrite', ['notes.txt', 'new.csv']],
    ['upload-conflict-skip', ['new.csv']],
  ])('asks before uploading over an existing name (%s)', async (choice, queued) => {
    renderAt('/storage');
    await findRow('notes.txt');
    const input = screen.getByTestId('storage-upload-input') as HTMLInputElement;
    await act(async () => {
      fireEvent.change(input, { target: { files: [new File(['new text'], 'notes.txt'), new File(['a,b'], 'new.csv')] } });
    });
    const dialog = await screen.findByTestId('upload-conflict', undefined, { timeout: 5000 });
    expect(dialog.textContent).toContain('“notes.txt”已存在');
    expect(useUploadStore.getState().tasks).toHaveLength(0); // nothing starts before the answer
    fireEvent.click(screen.getByTestId(choice));
    await waitFor(() => expect(useUploadStore.getState().tasks.map((t) => t.name).sort()).toEqual([...queued].sort()));
    expect(useUploadStore.getState().tasks.every((t) => t.path === '/')).toBe(true);
  }, 30_000);

  it('queues without asking when no name clashes', async () => {
    renderAt('/storage');
    await findRow('notes.txt');
    const input = screen.getByTestId('storage-upload-input') as HTMLInputElement;
    await act(async () => {
      fireEvent.change(input, { target: { files: [new File(['x'], 'fresh.txt')] } });
    });
    await waitFor(() => expect(useUploadStore.getState().tasks.map((t) => t.name)).toEqual(['fresh.txt']));
    expect(screen.queryByTestId('upload-conflict')).toBeNull();
  }, 30_000);

  it('queues picked files into the current folder of the current center', async () => {
    renderAt('/storage?path=/docs');
    await findRow('readme.md');
    const input = screen.getByTestId('storage-upload-input') as HTMLInputElement;
    const file = new File(['abc'], 'new.csv');
    await act(async () => {
      fireEvent.change(input, { target: { files: [file] } });
    });
    await waitFor(() => expect(useUploadStore.getState().tasks).toHaveLength(1));
    expect(useUploadStore.getState().tasks[0]).toMatchObject({ name: 'new.csv', path: '/docs', centerId: 'sz', status: 'uploading' });
  });

  it('accepts a dropped folder: creates its folders, then queues files into them', async () => {
    renderAt('/storage');
    await findRow('docs');
    const fileEntry = (name: string) => ({ isFile: true, isDirectory: false, name, file: (ok: (f: File) => void) => ok(new File(['x'], name)) });
    let read = false;
    const folder = {
      isFile: false,
      isDirectory: true,
      name: 'dataset',
      createReader: () => ({ readEntries: (ok: (e: unknown[]) => void) => ok(read ? [] : ((read = true), [fileEntry('1.jpg'), fileEntry('2.jpg')])) }),
    };
    const dataTransfer = {
      types: ['Files'],
      files: [],
      items: [{ kind: 'file', webkitGetAsEntry: () => folder, getAsFile: () => null }],
      dropEffect: 'none',
    };
    const zone = screen.getByTestId('storage-dropzone');
    fireEvent.dragEnter(zone, { dataTransfer });
    expect(await screen.findByText('松开鼠标，上传到当前文件夹')).toBeTruthy();
    fireEvent.drop(zone, { dataTransfer });
    await waitFor(() => expect(useUploadStore.getState().tasks).toHaveLength(2));
    expect(backend.callsTo(`/directory/${pathToId('/')}`, 'POST')[0].body).toEqual({ name: 'dataset' });
    expect(useUploadStore.getState().tasks.map((t) => [t.name, t.path])).toEqual([
      ['1.jpg', '/dataset'],
      ['2.jpg', '/dataset'],
    ]);
  });

  it('refreshes the listing when an upload into this center finishes', async () => {
    // The uploader is faked here (its own tests cover the wire); the server then lists the new file.
    configureUploads({
      upload: async (opts) => {
        backend.put('sz', `/${opts.file.name}`, 'file', opts.file.size);
        return { entry: null, instant: false, sentChunks: [], identifier: 'x' };
      },
    });
    renderAt('/storage');
    await findRow('docs');
    const before = backend.callsTo('/directory', 'POST').length;
    const dataTransfer = {
      types: ['Files'],
      files: [new File(['x'], 'fresh.dat')],
      items: [{ kind: 'file', webkitGetAsEntry: () => null, getAsFile: () => new File(['x'], 'fresh.dat') }],
      dropEffect: 'none',
    };
    fireEvent.drop(screen.getByTestId('storage-dropzone'), { dataTransfer });
    await findRow('fresh.dat');
    expect(backend.callsTo('/directory', 'POST').length).toBeGreaterThan(before);
  });

  it('跨中心同步 copies the one selected folder into a folder picked on another center', async () => {
    backend.put('gz', '/inbox', 'dir');
    backend.put('gz', '/inbox/old', 'dir');
    renderAt('/storage');
    const docs = await findRow('docs');
    const action = () => screen.getByTestId('sync-action') as HTMLButtonElement;
    expect(action().disabled).toBe(true); // nothing selected
    fireEvent.click(within(docs).getByRole('checkbox'));
    fireEvent.click(within(row('notes.txt')!).getByRole('checkbox'));
    await waitFor(() => expect(action().disabled).toBe(true)); // one item at a time
    fireEvent.click(within(row('notes.txt')!).getByRole('checkbox'));
    await waitFor(() => expect(action().disabled).toBe(false));
    fireEvent.click(action());

    const modal = await screen.findByTestId('sync-modal');
    expect(within(modal).getByTestId('sync-source').textContent).toBe('深圳算力分中心：/docs');
    // The other centers only: this one is not a target.
    const select = within(modal).getByTestId('sync-target-center').closest('.ant-select') as HTMLElement;
    expect(select.textContent).toContain('广州算力分中心');
    fireEvent.mouseDown(select.querySelector('.ant-select-selector, .ant-select-content') ?? select);
    await waitFor(() => expect(document.querySelectorAll('.ant-select-item-option').length).toBeGreaterThan(0));
    const options = [...document.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent);
    expect(options).toEqual(['广州算力分中心']);
    expect(within(modal).getByTestId('sync-target-path').textContent).toBe('/docs');
    expect(modal.textContent).toContain('传输中断后会自动从断点继续');

    // The folder picker browses the target center's storage.
    fireEvent.click(within(modal).getByTestId('sync-target-dir-pick'));
    const node = await waitFor(() => {
      const el = document.querySelector('[data-testid="storage-picker-node"][data-path="/inbox"]');
      expect(el).toBeTruthy();
      return el as HTMLElement;
    });
    expect(backend.callsTo('/directory', 'POST').at(-1)!.url.pathname).toContain('/file-service/gz/');
    fireEvent.click(node);
    fireEvent.click(screen.getByTestId('storage-picker-ok'));
    await waitFor(() => expect(within(modal).getByTestId('sync-target-path').textContent).toBe('/inbox/docs'));
    expect((within(modal).getByTestId('sync-target-dir') as HTMLInputElement).value).toBe('/inbox');

    fireEvent.click(screen.getByTestId('sync-ok'));
    expect(await screen.findByText('已创建同步任务')).toBeTruthy();
    expect(backend.callsTo('/gateway/sync/api/v1/syncs', 'POST').map((c) => c.body)).toEqual([
      { sourceCenterId: 'sz', sourcePath: '/docs', targetCenterId: 'gz', targetDir: '/inbox' },
    ]);
    await waitFor(() => expect(screen.queryByTestId('sync-modal')).toBeNull());
  }, 30_000);

  it('跨中心同步 shows the server\'s refusal and keeps the dialog for a correction', async () => {
    const error = vi.spyOn(toast, 'error');
    renderAt('/storage');
    fireEvent.click(within(await findRow('notes.txt')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('sync-action'));
    const modal = await screen.findByTestId('sync-modal');
    fireEvent.change(within(modal).getByTestId('sync-target-dir'), { target: { value: '/nope' } });
    await waitFor(() => expect(within(modal).getByTestId('sync-target-path').textContent).toBe('/nope/notes.txt'));
    fireEvent.click(screen.getByTestId('sync-ok'));
    await waitFor(() => expect(error).toHaveBeenCalledWith('目录不存在：/nope'));
    expect(lastBody('/gateway/sync/api/v1/syncs')).toEqual({ sourceCenterId: 'sz', sourcePath: '/notes.txt', targetCenterId: 'gz', targetDir: '/nope' });
    expect(screen.getByTestId('sync-modal')).toBeTruthy();
    expect(backend.syncs).toHaveLength(0);
  }, 30_000);

  it('switches center from the URL and keeps the choice', async () => {
    backend.put('gz', '/gz-only.txt', 'file', 1);
    renderAt('/storage?center=gz');
    await findRow('gz-only.txt');
    expect(window.localStorage.getItem('suanli.storage.center')).toBe('gz');
    cleanup();
    renderAt('/storage');
    await findRow('gz-only.txt');
  });
});
