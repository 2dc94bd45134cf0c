import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Asset, ImagePublication } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { input } from '../../test/ui';
import { changeLines } from './admin-view';
import { AdminReviewsPage } from './routes';

const asset = (id: string, kind: 'dataset' | 'model', name: string): Asset => ({
  id,
  kind,
  name,
  description: `${name}的说明`,
  tags: [],
  license: 'MIT',
  visibility: 'private',
  publishState: 'pending',
  publishReason: '',
  ownerId: 'u2',
  ownerName: 'bob',
  mine: false,
  framework: '',
  format: '',
  metrics: {},
  versionCount: 1,
  latestSizeBytes: 1024,
  createTime: 1_700_000_000_000,
  updateTime: 1_700_000_000_000,
});

const image = (id: string): ImagePublication => ({
  id,
  ownerId: 'u2',
  ownerName: 'bob',
  source: 'bob/app:v1',
  digest: 'sha256:0123456789abcdef0123456789abcdef',
  target: 'public/bob/app:v1',
  state: 'pending',
  reason: '',
  createTime: 1_700_000_000_000,
  reviewTime: null,
});

/** Pending requests behind a stubbed fetch; a decision removes the request (the rules are in the api tests). */
function fakeBackend() {
  const pending = { datasets: [asset('d1', 'dataset', 'MNIST 迷你版')], models: [] as Asset[], images: [image('p1')] };
  const calls: { method: string; path: string; body: any }[] = [];
  let roles = ['user', 'operator'];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const p = url.pathname;
    calls.push({ method, path: p, body });
    if (p.endsWith('/user/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles });
    if (p.endsWith('/sub-centers/action/list')) return ok([]);
    if (p.endsWith('/datasets/action/pending-publication')) return ok(pending.datasets);
    if (p.endsWith('/models/action/pending-publication')) return ok(pending.models);
    if (p.endsWith('/publications/action/pending')) return ok(pending.images);
    const a = /\/datasets\/([^/]+)\/publish\/review$/.exec(p);
    if (a) {
      const found = pending.datasets.find((x) => x.id === a[1])!;
      pending.datasets = pending.datasets.filter((x) => x.id !== a[1]);
      return ok({ ...found, publishState: body.approve ? 'published' : 'none', versions: [], shares: [], added: false });
    }
    const i = /\/publications\/([^/]+)\/review$/.exec(p);
    if (i) {
      const found = pending.images.find((x) => x.id === i[1])!;
      pending.images = pending.images.filter((x) => x.id !== i[1]);
      return ok({ ...found, state: body.approve ? 'approved' : 'rejected', reason: body.reason });
    }
    return ok(null, 1205, '不存在');
  };
  return { fetch, calls, setRoles: (r: string[]) => (roles = r) };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));

const reviews = () => backend.calls.filter((c) => c.path.endsWith('/review'));

describe('运营管理 › 审核', () => {
  it('approves a dataset after a confirmation that says what happens; the request leaves the list', async () => {
    renderRoutes({ '/admin/reviews': <AdminReviewsPage /> }, '/admin/reviews');
    const table = await screen.findByTestId('admin-review-dataset');
    await waitFor(() => expect(within(table).getByText('MNIST 迷你版')).toBeTruthy());
    expect(table.textContent).toContain('bob');
    fireEvent.click(within(table).getByTestId('admin-review-approve'));
    const dialog = await screen.findByTestId('admin-review-modal');
    expect(dialog.textContent).toContain('出现在公共资源大厅');
    expect(reviews()).toEqual([]);
    fireEvent.click(screen.getByTestId('admin-review-confirm'));
    await waitFor(() => expect(reviews().map((c) => [c.path.split('/v1')[1], c.body])).toEqual([['/datasets/d1/publish/review', { approve: true, reason: '' }]]));
    await waitFor(() => expect(screen.getByTestId('admin-review-dataset').textContent).toContain('没有待审核的数据集公开申请'));
  });

  it('refuses to reject without a reason, then sends the reason', async () => {
    renderRoutes({ '/admin/reviews': <AdminReviewsPage /> }, '/admin/reviews');
    const table = await screen.findByTestId('admin-review-dataset');
    await waitFor(() => expect(within(table).getByText('MNIST 迷你版')).toBeTruthy());
    fireEvent.click(within(table).getByTestId('admin-review-reject'));
    await screen.findByTestId('admin-review-modal');
    fireEvent.click(screen.getByTestId('admin-review-confirm'));
    expect(await screen.findByText('请填写驳回原因')).toBeTruthy();
    expect(reviews()).toEqual([]);
    fireEvent.change(input('admin-review-reason'), { target: { value: '  缺少许可协议 ' } });
    fireEvent.click(screen.getByTestId('admin-review-confirm'));
    await waitFor(() => expect(reviews().map((c) => c.body)).toEqual([{ approve: false, reason: '缺少许可协议' }]));
  });

  it('lists image requests on their tab (?kind=image) and approves one', async () => {
    renderRoutes({ '/admin/reviews': <AdminReviewsPage /> }, '/admin/reviews?kind=image');
    const table = await screen.findByTestId('admin-review-image');
    await waitFor(() => expect(table.textContent).toContain('bob/app:v1'));
    fireEvent.click(within(table).getByTestId('admin-review-approve'));
    expect((await screen.findByTestId('admin-review-modal')).textContent).toContain('复制到 public 命名空间');
    fireEvent.click(screen.getByTestId('admin-review-confirm'));
    await waitFor(() => expect(reviews().map((c) => [c.path.split('/v1')[1], c.body])).toEqual([['/publications/p1/review', { approve: true, reason: '' }]]));
  });

  it('says 没有权限 to a non-operator and asks nothing of the review routes', async () => {
    backend.setRoles(['user']);
    renderRoutes({ '/admin/reviews': <AdminReviewsPage /> }, '/admin/reviews');
    expect((await screen.findByTestId('no-permission')).textContent).toContain('没有权限');
    expect(backend.calls.some((c) => c.path.includes('pending'))).toBe(false);
  });

  it('describes a review in the audit log in words', () => {
    expect(changeLines({ before: '{"publishState":"pending","visibility":"private"}', after: '{"publishState":"published","visibility":"public"}' })).toEqual([
      '公开状态：审核中 → 已公开',
      '可见范围：私有 → 公开',
    ]);
    expect(changeLines({ before: '{"state":"pending"}', after: '{"state":"rejected"}' })).toEqual(['状态：审核中 → 已驳回']);
  });
});
