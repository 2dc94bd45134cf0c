import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Team } from '@suanli/contracts';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureUploads, useUploadStore, type UploadOptions } from '../../shared/upload';
import { resetUploads } from '../../shared/upload/store';
import { resetUploadRefreshes } from './hooks';
import { choose } from '../../test/ui';
import { StorageDetailPage, StoragePage } from './routes';
import { createFakeBackend } from './test/fake-backend';

let backend: ReturnType<typeof createFakeBackend>;
let location = '';

function LocationProbe() {
  location = useLocation().pathname + useLocation().search;
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

const team = (id: string, name: string): Team => ({ id, name, description: '', ownerId: 'o', ownerName: 'owner', myRole: 'member', memberCount: 2, createTime: 1 });
const row = (name: string) => document.querySelector(`[data-testid="storage-row"][data-name="${name}"]`) as HTMLElement | null;
const findRow = (name: string) => waitFor(() => expect(row(name)).toBeTruthy(), { timeout: 5000 }).then(() => row(name)!);
const selectLabel = () => screen.getByTestId('storage-space-select').textContent;

beforeEach(() => {
  backend = createFakeBackend();
  backend.put('sz', '/mine.txt', 'file', 5);
  backend.put('sz~team:t1', '/shared', 'dir');
  backend.put('sz~team:t1', '/shared/result.csv', 'file', 12);
  vi.stubGlobal('fetch', backend.fetch);
  window.localStorage.clear();
  resetUploads();
  configureUploads({ upload: () => new Promise(() => {}), hash: null });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  resetUploads();
  resetUploadRefreshes();
});

describe('存储管理 › 我的空间 / 团队空间', () => {
  it('offers no switch to a user without teams', async () => {
    renderAt('/storage');
    await findRow('mine.txt');
    await waitFor(() => expect(backend.callsTo('/team/api/v1/teams', 'GET')).toHaveLength(1));
    expect(screen.queryByTestId('storage-space-select')).toBeNull();
  });

  it('switches to a team\'s folder: every call names the space, the terminal and 跨中心同步 go, uploads carry it', async () => {
    backend.teams.push(team('t1', '视觉组'), team('t2', '语音组'));
    const uploads: UploadOptions[] = [];
    configureUploads({ upload: (o) => (uploads.push(o), new Promise(() => {})), hash: null });
    renderAt('/storage');
    await findRow('mine.txt');
    expect(backend.calls.every((c) => c.space === undefined)).toBe(true);
    expect(screen.getByTestId('storage-open-terminal')).toBeTruthy();
    expect(screen.getByTestId('sync-action')).toBeTruthy();
    await waitFor(() => expect(selectLabel()).toBe('我的空间'));

    await choose('storage-space-select', '团队「视觉组」空间');
    await findRow('shared');
    expect(location).toBe('/storage?space=team%3At1');
    expect(row('mine.txt')).toBeNull();
    expect(selectLabel()).toBe('团队「视觉组」空间');
    expect(document.body.textContent).toContain('团队「视觉组」在各算力分中心的共享文件夹');
    const fileCalls = backend.calls.filter((c) => c.url.pathname.includes('/file-service/'));
    expect(fileCalls.at(-1)!.space).toBe('team:t1');
    // The usage call of the team's folder too.
    expect(backend.callsTo('/usage', 'GET').some((c) => c.space === 'team:t1')).toBe(true);
    expect(screen.queryByTestId('storage-open-terminal')).toBeNull();
    expect(screen.queryByTestId('sync-action')).toBeNull();

    // Into a folder (the space stays in the URL), a file opens its detail page in the same space.
    fireEvent.click(within(row('shared')!).getByTestId('storage-open'));
    await findRow('result.csv');
    expect(location).toBe('/storage?space=team%3At1&path=%2Fshared');
    fireEvent.click(within(row('result.csv')!).getByTestId('storage-open'));
    await waitFor(() => expect(location).toBe('/storage/detail?center=sz&path=%2Fshared%2Fresult.csv&space=team%3At1'));
    await screen.findByTestId('storage-detail');
    expect(backend.calls.filter((c) => c.url.pathname.includes('/file-service/')).at(-1)!.space).toBe('team:t1');
    fireEvent.click(screen.getByRole('button', { name: /返\s*回/ }));
    await findRow('result.csv');
    expect(location).toBe('/storage?center=sz&space=team%3At1&path=%2Fshared');

    // A drop uploads into the team's folder.
    const dataTransfer = {
      types: ['Files'],
      files: [new File(['x'], 'new.dat')],
      items: [{ kind: 'file', webkitGetAsEntry: () => null, getAsFile: () => new File(['x'], 'new.dat') }],
      dropEffect: 'none',
    };
    fireEvent.drop(screen.getByTestId('storage-dropzone'), { dataTransfer });
    await waitFor(() => expect(uploads).toHaveLength(1));
    expect(uploads[0]).toMatchObject({ space: 'team:t1', targetDir: '/shared', baseUrl: 'http://fs.test/file-service/sz' });
    expect(useUploadStore.getState().tasks.map((t) => [t.name, t.path, t.centerName])).toEqual([['new.dat', '/shared', '深圳算力分中心 · 团队「视觉组」空间']]);

    // Back to 我的空间: the home again, no header.
    await choose('storage-space-select', '我的空间');
    await findRow('mine.txt');
    expect(location).toBe('/storage?center=sz');
    expect(backend.calls.filter((c) => c.url.pathname.includes('/file-service/')).at(-1)!.space).toBeUndefined();
  });

  it('says in Chinese why the folder of a team the user left cannot be read', async () => {
    backend.teams.push(team('t2', '语音组'));
    renderAt('/storage?space=team%3At1');
    expect(await screen.findByText('团队空间不存在或您已不是该团队的成员')).toBeTruthy();
    expect(screen.getByText('无法读取该文件夹')).toBeTruthy();
    await waitFor(() => expect(selectLabel()).toBe('团队空间（您已不是该团队成员）'));
  });
});
