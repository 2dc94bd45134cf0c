import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { ImageImport, ImageItem, ImageRepository } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { useUserStore } from '../../app/stores/user-store';
import { renderRoutes } from '../../test/render-routes';
import { choose, confirmPop, errors, input } from '../../test/ui';
import { ImageListPage, PrivateImageDetailPage, PrivateImageFormPage } from './routes';

const ADDRESS = 'registry.test:5000';
const tag = (t: string, digest: string): ImageRepository['tags'][number] => ({ tag: t, digest, sizeBytes: 3 * 1024 * 1024, layers: 2, created: 1_700_000_000_000, pullCommand: `docker pull ${ADDRESS}/alice/app:${t}` });

/** An in-memory image service behind a stubbed fetch (the server's rules: image.api.test.ts and the int tests). */
function fakeBackend(o: { registry?: boolean } = {}) {
  const calls: { method: string; path: string; query: URLSearchParams; body: any }[] = [];
  const repos: ImageRepository[] = [{ name: 'alice/app', tags: [tag('v1', 'sha256:aaa'), tag('v2', 'sha256:bbb')] }];
  const imports: ImageImport[] = [];
  let hasCredential = false;
  const catalogue: ImageItem[] = [
    { id: 'pytorch-2.3-cuda12', name: 'PyTorch 2.3 (CUDA 12.1)', framework: 'PyTorch', version: '2.3.1', accelerator: 'CUDA 12.1', cardVendors: ['NVIDIA'], uri: 'docker://x/p', description: 'PyTorch 官方镜像', visibility: 'public' },
    { id: 'mindspore-2.3-cann8', name: 'MindSpore 2.3 (CANN 8.0)', framework: 'MindSpore', version: '2.3.0', accelerator: 'CANN 8.0', cardVendors: ['Huawei', 'Hygon'], uri: 'docker://x/m', description: '昇腾镜像', visibility: 'public' },
    { id: 'alice/app:v1', name: 'alice/app:v1', framework: '', version: 'v1', accelerator: '', cardVendors: [], uri: 'docker://x/a', description: '私有镜像', visibility: 'private', owner: 'alice' },
  ];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path: url.pathname, query: url.searchParams, body });
    const p = url.pathname;
    if (p.endsWith('/sub-centers/action/list')) return ok([{ id: 'sz-a100', name: '深圳算力分中心', region: '', description: '', status: 'online', fileServiceUrl: '', cardTypes: [] }]);
    if (p === '/gateway/training/api/v1/images') return ok(catalogue);
    if (!p.startsWith('/gateway/image/api/v1')) return ok(null, 1205, '不存在');
    if (!o.registry) return ok(null, 2401, '镜像仓库未配置');
    const route = p.slice('/gateway/image/api/v1'.length);
    if (route === '/registry') return ok({ address: ADDRESS, namespace: 'alice', username: 'Alice', hasCredential });
    if (route === '/registry/credential/reset') {
      hasCredential = true;
      return ok({ username: 'Alice', password: `pw-${calls.length}` });
    }
    if (route === '/images') return ok(repos);
    if (route === '/images/detail') return ok(repos.find((r) => r.name === url.searchParams.get('name')) ?? null, repos.some((r) => r.name === url.searchParams.get('name')) ? 0 : 2403, '镜像或标签不存在');
    if (route === '/images/tags' && method === 'DELETE') {
      const r = repos.find((x) => x.name === url.searchParams.get('name'))!;
      const digest = r.tags.find((t) => t.tag === url.searchParams.get('tag'))!.digest;
      r.tags = r.tags.filter((t) => t.digest !== digest);
      return ok(null);
    }
    if (route === '/imports' && method === 'POST') {
      const imp: ImageImport = { id: `imp${imports.length + 1}`, subCenterId: body.subCenterId, path: body.path, repository: `alice/${body.repository}`, tag: body.tag ?? '', format: '', state: 'running', percent: 0, message: '正在读取镜像文件', digest: '', createTime: 1, updateTime: 1 };
      imports.push(imp);
      return ok(imp);
    }
    const m = /^\/imports\/(.+)$/.exec(route);
    if (m) return ok(imports.find((i) => i.id === m[1]) ?? null);
    return ok(null, 1205, '不存在');
  };
  return { calls, repos, imports, fetch };
}

let backend: ReturnType<typeof fakeBackend>;
function setup(o: { registry?: boolean } = { registry: true }) {
  backend = fakeBackend(o);
  vi.stubGlobal('fetch', vi.fn(backend.fetch));
}
beforeEach(() => {
  queryClient.clear();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'Alice', token: 't', createTime: 1 });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const renderAt = (url: string) =>
  renderRoutes({ '/image': <ImageListPage />, '/image/form': <PrivateImageFormPage />, '/image/detail/:id': <PrivateImageDetailPage /> }, url);

describe('镜像 pages', () => {
  it('公共镜像 lists the catalogue without private tags; 我的镜像 lists the repositories and opens one', async () => {
    setup();
    const router = renderAt('/image');
    const table = await screen.findByTestId('image-public');
    await waitFor(() => expect(table.textContent).toContain('PyTorch 2.3 (CUDA 12.1)'));
    // Vendors in Chinese, not as configured (Huawei, Hygon).
    expect(table.textContent).toContain('华为海光');
    expect(table.textContent).not.toMatch(/Huawei|Hygon/);
    expect(table.textContent).not.toContain('alice/app:v1');
    fireEvent.click(screen.getByRole('tab', { name: '我的镜像' }));
    const mine = await screen.findByTestId('image-mine');
    expect(mine.textContent).toContain('v1');
    expect(mine.textContent).toContain('v2');
    fireEvent.click(screen.getByTestId('image-repo'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/image/detail/alice%2Fapp'));
  });

  it('without a registry (2401) says private images are not offered yet, in the user\'s terms, and disables 推送私有镜像', async () => {
    setup({ registry: false });
    renderAt('/image?tab=mine');
    const note = await screen.findByTestId('image-no-registry');
    expect(note.textContent).toContain('本平台暂未提供私有镜像');
    // No configuration names (REGISTRY_URL) or English for the user.
    expect(note.textContent).not.toMatch(/[A-Z_]{4,}/);
    await waitFor(() => expect(screen.getByTestId('image-push-open').hasAttribute('disabled')).toBe(true));
  });

  it('推送私有镜像 without a registry: the same words and a way back to the list or to a work order', async () => {
    setup({ registry: false });
    const router = renderAt('/image/form');
    const result = await screen.findByTestId('image-no-registry');
    expect(result.textContent).toContain('本平台暂未提供私有镜像');
    expect(result.textContent).not.toMatch(/[A-Z_]{4,}/);
    fireEvent.click(screen.getByTestId('image-form-back'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/image'));
  });

  it('a registry that does not answer is not "not offered": it says so and retries', async () => {
    setup({ registry: true });
    const realFetch = backend.fetch;
    let down = true;
    vi.stubGlobal('fetch', vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => (down && String(input).endsWith('/registry') ? new Response('', { status: 502 }) : realFetch(input, init))));
    renderAt('/image/form');
    expect((await screen.findByTestId('image-registry-error')).textContent).toContain('暂时无法连接平台镜像仓库');
    down = false;
    fireEvent.click(screen.getByTestId('image-registry-retry'));
    expect(await screen.findByTestId('image-login')).toBeTruthy();
  });

  it('shows a new registry password once, with the login and push commands', async () => {
    setup();
    renderAt('/image/form');
    expect((await screen.findByTestId('image-login')).textContent).toContain(`docker login ${ADDRESS} -u Alice`);
    expect(screen.getByTestId('image-push').textContent).toContain(`docker push ${ADDRESS}/alice/my-image:latest`);
    expect(screen.queryByTestId('image-password')).toBeNull();
    fireEvent.click(screen.getByTestId('image-reset-credential'));
    await confirmPop('生成镜像仓库密码');
    expect((await screen.findByTestId('image-password')).textContent).toMatch(/^pw-\d+/);
    await waitFor(() => expect(screen.getByTestId('image-reset-credential').textContent).toContain('重置密码'));
  });

  it('imports an archive from storage: checks the names, then shows the progress the socket pushes', async () => {
    setup();
    renderAt('/image/form');
    await screen.findByTestId('image-import-submit');
    fireEvent.change(input('image-import-path'), { target: { value: '/images/app.tar' } });
    fireEvent.change(input('image-import-repository'), { target: { value: 'My App' } });
    fireEvent.change(input('image-import-tag'), { target: { value: '.bad' } });
    fireEvent.click(screen.getByTestId('image-import-submit'));
    await waitFor(() => expect(errors()).toEqual(['请选择镜像文件所在的分中心', '仓库名只能使用小写字母、数字以及 . _ - /，且须以字母或数字开头和结尾', '标签只能使用字母、数字以及 . _ -，且不能以 . 或 - 开头']));
    expect(backend.calls.some((c) => c.path.endsWith('/imports'))).toBe(false);

    await choose('image-import-center', '深圳算力分中心');
    fireEvent.change(input('image-import-repository'), { target: { value: 'my-app' } });
    fireEvent.change(input('image-import-tag'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('image-import-submit'));
    await waitFor(() => expect(backend.calls.find((c) => c.path.endsWith('/imports') && c.method === 'POST')?.body).toEqual({ subCenterId: 'sz-a100', path: '/images/app.tar', repository: 'my-app' }));
    await screen.findByTestId('image-import-progress');
    const imp = backend.imports[0];
    act(() => applyLiveEvent(queryClient, { businessType: 'image.import.changed', data: { ...imp, percent: 55, format: 'oci-archive', tag: 'v1', message: '正在推送到镜像仓库' } }));
    await waitFor(() => expect(screen.getByTestId('image-import-progress').textContent).toContain('55%'));
    expect(screen.getByTestId('image-import-status').textContent).toContain('正在推送到镜像仓库');
    act(() => applyLiveEvent(queryClient, { businessType: 'image.import.changed', data: { ...imp, state: 'succeeded', percent: 100, tag: 'v1', digest: 'sha256:ccc', message: '已导入 alice/my-app:v1' } }));
    await waitFor(() => expect(screen.getByTestId('image-import-status').textContent).toContain('已导入 alice/my-app:v1'));
    expect(screen.getByTestId('image-import-status').textContent).toContain('sha256:ccc');
  });

  it('an invalid archive shows what is wrong with it', async () => {
    setup();
    renderAt('/image/form');
    await screen.findByTestId('image-import-submit');
    await choose('image-import-center', '深圳算力分中心');
    fireEvent.change(input('image-import-path'), { target: { value: '/bad.tar' } });
    fireEvent.change(input('image-import-repository'), { target: { value: 'bad' } });
    fireEvent.click(screen.getByTestId('image-import-submit'));
    await screen.findByTestId('image-import-progress');
    act(() => applyLiveEvent(queryClient, { businessType: 'image.import.changed', data: { ...backend.imports[0], state: 'failed', message: '镜像文件无效：不是 tar 文件' } }));
    expect((await screen.findByTestId('image-import-error')).textContent).toContain('镜像文件无效：不是 tar 文件');
    // The form is usable again for the next attempt.
    await waitFor(() => expect(screen.getByTestId('image-import-submit').hasAttribute('disabled')).toBe(false));
  });

  it('detail: tags with digest, size, layers; deleting a tag asks first and says same-digest tags go too', async () => {
    setup();
    renderAt('/image/detail/alice%2Fapp');
    const tags = await screen.findByTestId('image-tags');
    expect(screen.getByTestId('image-title').textContent).toBe('alice/app');
    expect(tags.textContent).toContain('v1');
    expect(tags.textContent).toContain('3.00 MB');
    fireEvent.click(screen.getAllByRole('button', { name: /删除/ })[0]);
    await confirmPop('指向同一摘要的其他标签会一并删除');
    await waitFor(() => expect(backend.calls.find((c) => c.method === 'DELETE')?.query.get('tag')).toBe('v1'));
    await waitFor(() => expect(screen.getByTestId('image-tags').textContent).not.toContain('sha256:aaa'.slice(0, 10)));
    expect(screen.getByTestId('image-tags').textContent).toContain('v2');
  });
});
