import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AssetDetail, AssetVersion } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { choose, confirmPop, input } from '../../test/ui';
import { DatasetDetailPage, DatasetIndexPage } from '../dataset/routes';
import { PublicDataDetailPage } from '../public-data/routes';
import { parseMetrics } from './asset-form';
import { AssetCard } from './asset-index-page';

/** An in-memory dataset service behind a stubbed fetch (the server's own rules are in asset.api.test.ts). */
function fakeBackend() {
  const assets: AssetDetail[] = [];
  const calls: { method: string; path: string; body: any }[] = [];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const version = (n: number, over: Partial<AssetVersion> = {}): AssetVersion => ({
    id: `v${n}`,
    version: n,
    subCenterId: 'sz-a100',
    subCenterName: '深圳算力分中心',
    sourcePath: '/data/mnist',
    state: 'ready',
    reason: '',
    sizeBytes: 2048,
    fileCount: 2,
    copiedBytes: 2048,
    digest: 'd'.repeat(64),
    note: '',
    sourceTaskId: null,
    mountPath: `/mnt/datasets/MNIST/v${n}`,
    createTime: 1,
    ...over,
  });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path: url.pathname, body });
    const p = url.pathname;
    if (p.endsWith('/sub-centers/action/list')) return ok([{ id: 'sz-a100', name: '深圳算力分中心', region: '', description: '', status: 'online', fileServiceUrl: '', cardTypes: [] }]);
    // The caller's teams (team module), offered by the share dialog.
    if (p === '/gateway/team/api/v1/teams' && method === 'GET') return ok([{ id: 't1', name: '视觉组', description: '', ownerId: 'u1', ownerName: 'alice', myRole: 'member', memberCount: 3, createTime: 1 }]);
    if (p.endsWith('/datasets/action/page')) {
      const list = assets.filter((a) => (body.scope === 'shared' ? !a.mine : a.mine));
      return ok({ list, total: list.length, pageNum: 1, pageSize: 12 });
    }
    if (p.endsWith('/datasets') && method === 'POST') {
      const a: AssetDetail = {
        id: `d${assets.length + 1}`,
        kind: 'dataset',
        name: body.name,
        description: body.description,
        tags: body.tags,
        license: body.license,
        visibility: 'private',
        publishState: 'none',
        publishReason: '',
        ownerId: 'u1',
        ownerName: 'alice',
        mine: true,
        framework: '',
        format: '',
        metrics: {},
        versionCount: body.source ? 1 : 0,
        latestSizeBytes: 0,
        createTime: 1,
        updateTime: 1,
        versions: body.source ? [version(1, { state: 'creating', copiedBytes: 1024 })] : [],
        shares: [],
        teamShares: [],
        added: false,
      };
      assets.unshift(a);
      return ok(a);
    }
    const m = /\/datasets\/([^/]+)(?:\/(.*))?$/.exec(p);
    const a = m && assets.find((x) => x.id === m[1]);
    if (!a) return ok(null, 1205, '数据集不存在');
    const rest = m[2] ?? '';
    if (rest === '' && method === 'GET') return ok(a);
    if (rest === 'versions/v1/readme') return ok({ fileName: 'README.md', markdown: '# 手写数字\n\n<script>window.hacked = 1</script>\n\n**粗体** 说明' });
    if (rest === 'versions/v1/files') {
      return ok(url.searchParams.get('path') === '/train' ? [{ name: 'images.bin', type: 'file', size: 1000 }] : [
        { name: 'train', type: 'dir', size: 0 },
        { name: 'labels.csv', type: 'file', size: 13 },
      ]);
    }
    if (rest === 'shares') {
      if (body.usernames.includes('nobody')) return ok(null, 2306, '共享的用户不存在：nobody');
      a.shares = body.usernames.map((u: string) => ({ userId: `id-${u}`, username: u, nickname: '' }));
      a.visibility = 'shared';
      return ok(a);
    }
    if (rest === 'team-shares' && method === 'POST') {
      a.teamShares = [{ teamId: body.teamId, teamName: '视觉组' }];
      a.visibility = 'shared';
      return ok(a);
    }
    if (rest.startsWith('team-shares/') && method === 'DELETE') {
      a.teamShares = [];
      return ok(a);
    }
    if (rest === 'add-to-mine' && method === 'POST') {
      a.added = true;
      return ok(a);
    }
    if (rest === '' && method === 'DELETE') {
      assets.splice(assets.indexOf(a), 1);
      return ok(null);
    }
    return ok(null, 1005, `unexpected ${method} ${p}`);
  };
  return { assets, calls, fetch, version };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));

const renderAt = (url: string) =>
  renderRoutes(
    {
      '/dataset': <DatasetIndexPage />,
      '/dataset/detail/:id': <DatasetDetailPage />,
      '/public-data/detail/:type/:id': <PublicDataDetailPage />,
      '/training/task/:type': <p data-testid="training-form-probe" />,
    },
    url,
  );

describe('dataset pages', () => {
  it('creates a dataset with v1 from a folder and opens its page, which shows the copy in progress', async () => {
    const router = renderAt('/dataset');
    await screen.findByTestId('asset-empty');
    fireEvent.click(screen.getByTestId('asset-create'));
    fireEvent.change(input('asset-name'), { target: { value: 'MNIST' } });
    fireEvent.change(input('asset-description'), { target: { value: '手写数字' } });
    await choose('asset-source-center', '深圳算力分中心');
    fireEvent.change(input('asset-source-path'), { target: { value: '/data/mnist' } });
    fireEvent.click(screen.getByTestId('asset-form-ok'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset/detail/d1'));
    expect(backend.calls.find((c) => c.method === 'POST' && c.path.endsWith('/datasets'))?.body).toMatchObject({
      name: 'MNIST',
      description: '手写数字',
      source: { subCenterId: 'sz-a100', path: '/data/mnist' },
    });
    const versions = await screen.findByTestId('asset-versions');
    expect(within(versions).getByText('生成中')).toBeTruthy();
    expect(within(versions).getByText(/已复制 1(\.0+)? KB/)).toBeTruthy();
  });

  it('renders the README without its raw HTML and browses the folders of a version', async () => {
    backend.assets.push({ ...(await createdWithReadyVersion()) });
    renderAt('/dataset/detail/d1');
    fireEvent.click(await screen.findByRole('tab', { name: '说明' }));
    const readme = await screen.findByTestId('asset-readme');
    expect(readme.querySelector('h1')?.textContent).toBe('手写数字');
    expect(readme.querySelector('strong')?.textContent).toBe('粗体');
    expect(readme.querySelector('script')).toBeNull();
    expect((window as { hacked?: number }).hacked).toBeUndefined();

    fireEvent.click(screen.getByRole('tab', { name: '文件' }));
    fireEvent.click(await screen.findByTestId('asset-file-dir'));
    await waitFor(() => expect(screen.getAllByTestId('asset-file').map((f) => f.textContent?.trim())).toEqual(['images.bin']));
  });

  it('shares with named users, shows the server\'s refusal of an unknown one, and deletes', async () => {
    backend.assets.push(await createdWithReadyVersion());
    const router = renderAt('/dataset/detail/d1');
    const addName = (name: string) => {
      const box = within(screen.getByTestId('asset-share-names')).getByRole('combobox');
      fireEvent.change(box, { target: { value: name } });
      fireEvent.keyDown(box, { key: 'Enter', keyCode: 13 });
    };
    fireEvent.click(await screen.findByTestId('asset-share-open'));
    addName('nobody');
    fireEvent.click(screen.getByTestId('asset-share-ok'));
    await screen.findByText(/共享的用户不存在：nobody/);
    fireEvent.click(document.querySelector('.ant-select-selection-item-remove')!);
    addName('bob');
    fireEvent.click(screen.getByTestId('asset-share-ok'));
    await waitFor(() => expect(backend.calls.filter((c) => c.path.endsWith('/shares')).at(-1)?.body).toEqual({ usernames: ['bob'] }));
    await screen.findByText('已共享');
    fireEvent.click(document.querySelector('.ant-modal-close')!);

    fireEvent.click(screen.getByTestId('asset-delete'));
    await confirmPop();
    await waitFor(() => expect(router.state.location.pathname).toBe('/dataset'));
    expect(backend.assets).toHaveLength(0);
  });

  it('shares with one of the caller\'s teams from the share dialog and takes it back', async () => {
    backend.assets.push(await createdWithReadyVersion());
    renderAt('/dataset/detail/d1');
    fireEvent.click(await screen.findByTestId('asset-share-open'));
    expect(screen.getByText('尚未共享给任何团队')).toBeTruthy();
    fireEvent.mouseDown(within(screen.getByTestId('asset-share-team')).getByRole('combobox'));
    fireEvent.click(await screen.findByText('视觉组'));
    fireEvent.click(screen.getByTestId('asset-share-team-ok'));
    await waitFor(() => expect(backend.calls.find((c) => c.path.endsWith('/datasets/d1/team-shares'))?.body).toEqual({ teamId: 't1' }));
    await screen.findByText('已共享给团队');
    const table = screen.getByTestId('asset-team-shares');
    await waitFor(() => expect(table.textContent).toContain('视觉组'));
    fireEvent.click(within(table).getByRole('button', { name: /取消共享/ }));
    await waitFor(() => expect(backend.calls.some((c) => c.method === 'DELETE' && c.path.endsWith('/datasets/d1/team-shares/t1'))).toBe(true));
    await waitFor(() => expect(screen.getByTestId('asset-team-shares').textContent).toContain('尚未共享给任何团队'));
  });

  it('用于训练 of a public dataset reached by its own page adds it to the caller\'s list first (what the form offers)', async () => {
    const a = await createdWithReadyVersion();
    backend.assets.push({ ...a, mine: false, visibility: 'public', ownerId: 'u2', ownerName: 'platform', versions: [backend.version(2), backend.version(1)] });
    const router = renderAt('/dataset/detail/d1');
    fireEvent.click((await screen.findAllByTestId('asset-version-train'))[0]);
    await screen.findByTestId('training-form-probe');
    expect(router.state.location.pathname).toBe('/training/task/train');
    expect(new URLSearchParams(router.state.location.search).get('dataset')).toBe('d1:v2');
    expect(backend.calls.some((c) => c.method === 'POST' && c.path.endsWith('/datasets/d1/add-to-mine'))).toBe(true);
  });

  it('用于训练 of the owner\'s dataset opens the form for that version without adding anything', async () => {
    const a = await createdWithReadyVersion();
    backend.assets.push({ ...a, versions: [backend.version(2, { state: 'creating' }), backend.version(1)] });
    const router = renderAt('/dataset/detail/d1');
    // Only ready versions can be mounted: v2 is still being made.
    const rows = await screen.findAllByTestId('asset-version-train');
    expect(rows).toHaveLength(1);
    fireEvent.click(screen.getByTestId('asset-use-for-training'));
    await screen.findByTestId('training-form-probe');
    expect(new URLSearchParams(router.state.location.search).get('dataset')).toBe('d1:v1');
    expect(backend.calls.some((c) => c.path.endsWith('/add-to-mine'))).toBe(false);
  });

  it('the hall\'s 添加到我的 becomes 已添加到我的 once added, and stays so on the next visit; the owner shows by name', async () => {
    const a = await createdWithReadyVersion();
    backend.assets.push({ ...a, mine: false, visibility: 'public', ownerId: 'u2', ownerName: '算力平台', versions: [backend.version(1)] });
    renderAt('/public-data/detail/dataset/d1');
    const add = await screen.findByTestId('asset-add-to-mine');
    expect(add.textContent).toBe('添加到我的');
    expect(screen.getByText('算力平台')).toBeTruthy();
    fireEvent.click(add);
    await waitFor(() => expect(screen.getByTestId('asset-add-to-mine').getAttribute('data-added')).toBe('true'));
    expect(screen.getByTestId('asset-add-to-mine').textContent).toContain('已添加到我的');
    expect(screen.getByTestId('asset-add-to-mine').hasAttribute('disabled')).toBe(true);
    expect(backend.calls.filter((c) => c.path.endsWith('/add-to-mine'))).toHaveLength(1);
  });

  it('a card shows a model\'s framework once, even when a tag already names it', async () => {
    const a = await createdWithReadyVersion();
    const model = { ...a, kind: 'model' as const, tags: ['分类', 'numpy'], framework: 'NumPy' };
    renderRoutes({ '/': <AssetCard asset={model} to="/model/detail/d1" /> }, '/');
    const card = await screen.findByTestId('asset-card');
    expect(within(card).getAllByText(/^numpy$/i)).toHaveLength(1);
    cleanup();
    renderRoutes({ '/': <AssetCard asset={{ ...model, tags: ['分类'] }} to="/model/detail/d1" /> }, '/');
    expect(within(await screen.findByTestId('asset-card')).getByText('NumPy')).toBeTruthy();
  });

  it('reads metrics as name=number pairs', () => {
    expect(parseMetrics('top1=0.761, loss=1e-3，acc = 90')).toEqual({ top1: 0.761, loss: 0.001, acc: 90 });
    expect(parseMetrics('')).toEqual({});
    expect(parseMetrics('top1')).toBeNull();
  });
});

async function createdWithReadyVersion(): Promise<AssetDetail> {
  const b = fakeBackend();
  await b.fetch('/gateway/dataset/api/v1/datasets', { method: 'POST', body: JSON.stringify({ name: 'MNIST', description: '', tags: ['图像'], license: '' }) });
  const a = b.assets[0];
  a.versions = [b.version(1)];
  a.versionCount = 1;
  return a;
}
