import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AdminCenter, Order } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { choose, confirmPop, errors, input } from '../../test/ui';
import { changeLines } from './admin-view';
import { AdminCentersPage, AdminOrdersPage } from './routes';

const center = (): AdminCenter => ({
  id: 'sz',
  name: '深圳算力分中心',
  region: '广东·深圳',
  status: 'online',
  notice: '',
  updateTime: null,
  cardTypes: [
    { id: 'a100', name: 'NVIDIA A100' },
    { id: 'cpu', name: 'CPU 通用型' },
  ],
  packages: [{ id: 'p1', cardTypeId: 'a100', name: 'A100 体验卡', cardHours: 10, price: '128.00', validDays: 30 }],
});

const order = (id: string, over: Partial<Order> = {}): Order => ({
  id,
  orderNo: `DD2026112700${id}`,
  productId: 'p1',
  productName: 'A100 体验卡',
  subCenterId: 'sz',
  subCenterName: '深圳算力分中心',
  cardTypeId: 'a100',
  cardTypeName: 'NVIDIA A100',
  quantity: 1,
  cardHours: '10.00',
  amount: '128.00',
  status: 'UNPAID',
  payChannel: 'offline',
  createTime: 1_700_000_000_000,
  payTime: null,
  expireTime: 1_700_086_400_000,
  ownerId: 'u2',
  buyer: { username: 'bob', nickname: '鲍勃', phone: '13800000000', email: null },
  ...over,
});

/** 运营管理 › 分中心 and › 订单 behind a stubbed fetch (the rules are in the api tests). */
function fakeBackend() {
  const centers = [center()];
  const orders = [order('01'), order('02', { status: 'PAID', payChannel: 'alipay', buyer: { username: 'carol', nickname: 'carol', phone: null, email: 'c@example.com' } })];
  const calls: { method: string; path: string; body: any }[] = [];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const p = url.pathname;
    calls.push({ method, path: p, body });
    if (p.endsWith('/user/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles: ['user', 'operator'] });
    if (p.endsWith('/sub-centers/action/list')) return ok([{ id: 'sz', name: '深圳算力分中心', status: 'online', cardTypes: [] }]);
    if (p.endsWith('/admin/api/v1/centers')) return ok(centers);
    const st = /\/centers\/([^/]+)\/status$/.exec(p);
    if (st) {
      Object.assign(centers[0], { status: body.status, notice: body.notice, updateTime: 1_700_000_500_000 });
      return ok(centers[0]);
    }
    if (/\/centers\/[^/]+\/packages$/.test(p)) {
      centers[0].packages = body.packages.map((x: any, i: number) => ({ ...x, id: x.id ?? `new${i}` }));
      return ok(centers[0]);
    }
    if (p.endsWith('/orders/action/page')) {
      const rows = orders.filter((o) => (!body.username || o.buyer?.username === body.username) && (!body.payChannel || o.payChannel === body.payChannel));
      return ok({ list: rows, total: rows.length, pageNum: 1, pageSize: 10 });
    }
    const cf = /\/orders\/([^/]+)\/confirm$/.exec(p);
    if (cf) {
      const o = orders.find((x) => x.id === cf[1])!;
      Object.assign(o, { status: 'PAID' });
      return ok(o);
    }
    return ok(null, 1205, '不存在');
  };
  return { fetch, calls, centers };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));

describe('运营管理 › 分中心', () => {
  it('puts a center into 维护 with a notice (required), then back to 正常', async () => {
    renderRoutes({ '/admin/centers': <AdminCentersPage /> }, '/admin/centers');
    const card = await screen.findByTestId('center-card');
    expect(within(card).getByTestId('center-status').textContent).toBe('正常');
    expect(within(card).getAllByTestId('center-package')[0].textContent).toContain('A100 体验卡');

    fireEvent.click(within(card).getByTestId('center-set-status'));
    const form = await screen.findByTestId('center-status-form');
    fireEvent.click(within(form).getByText('维护'));
    await screen.findByTestId('center-status-notice');
    expect(form.textContent).toContain('运行中的任务不受影响');
    // No notice: refused in the form, nothing sent.
    fireEvent.click(screen.getByTestId('center-status-save'));
    await waitFor(() => expect(errors()).toContain('请填写公告，用户提交任务或购买时会看到它'));
    expect(backend.calls.some((c) => c.path.endsWith('/status'))).toBe(false);

    fireEvent.change(input('center-status-notice'), { target: { value: '存储扩容，暂停服务' } });
    fireEvent.change(input('center-status-reason'), { target: { value: '计划内维护' } });
    fireEvent.click(screen.getByTestId('center-status-save'));
    await waitFor(() => expect(screen.getByTestId('center-status').dataset.status).toBe('maintenance'));
    expect(backend.calls.find((c) => c.path.endsWith('/centers/sz/status'))!.body).toEqual({ status: 'maintenance', notice: '存储扩容，暂停服务', reason: '计划内维护' });
    expect(screen.getByTestId('center-notice').textContent).toContain('公告：存储扩容，暂停服务');

    fireEvent.click(screen.getByTestId('center-set-status'));
    fireEvent.click(within(await screen.findByTestId('center-status-form')).getByText('正常'));
    fireEvent.click(screen.getByTestId('center-status-save'));
    await waitFor(() => expect(screen.getByTestId('center-status').dataset.status).toBe('online'));
    expect(backend.calls.filter((c) => c.path.endsWith('/status')).at(-1)!.body).toEqual({ status: 'online', notice: '' });
    expect(screen.queryByTestId('center-notice')).toBeNull();
  });

  it('edits the packages: changes a price, adds one, saves the whole list', async () => {
    renderRoutes({ '/admin/centers': <AdminCentersPage /> }, '/admin/centers');
    fireEvent.click(await screen.findByTestId('center-edit-packages'));
    await screen.findByTestId('center-packages-form');
    fireEvent.change(screen.getAllByTestId('center-package-price')[0], { target: { value: '99.5' } });
    fireEvent.click(screen.getByTestId('center-package-add'));
    await waitFor(() => expect(screen.getAllByTestId('center-package-row')).toHaveLength(2));
    fireEvent.change(screen.getAllByTestId('center-package-name')[1], { target: { value: '周卡' } });
    fireEvent.change(screen.getAllByTestId('center-package-price')[1], { target: { value: '0' } });
    fireEvent.click(screen.getByTestId('center-packages-save'));
    await waitFor(() => expect(errors()).toContain('价格须大于 0'));
    fireEvent.change(screen.getAllByTestId('center-package-price')[1], { target: { value: '560' } });
    fireEvent.click(screen.getByTestId('center-packages-save'));
    await waitFor(() => expect(backend.calls.some((c) => c.path.endsWith('/packages'))).toBe(true));
    expect(backend.calls.find((c) => c.path.endsWith('/centers/sz/packages'))!.body).toEqual({
      packages: [
        { id: 'p1', cardTypeId: 'a100', name: 'A100 体验卡', cardHours: 10, price: '99.50', validDays: 30 },
        { cardTypeId: 'a100', name: '周卡', cardHours: 10, price: '560.00', validDays: 30 },
      ],
    });
    await waitFor(() => expect(screen.getAllByTestId('center-package').map((r) => r.textContent)).toEqual([expect.stringContaining('99.50'), expect.stringContaining('周卡')]));
  });

  it('shows center changes in the audit log in words', () => {
    expect(changeLines({ before: '{"status":"online","notice":""}', after: '{"status":"maintenance","notice":"扩容"}' })).toEqual(['状态：正常 → 维护', '公告：（无） → 扩容']);
    expect(
      changeLines({
        before: '{"packages":[{"id":"p1","cardTypeId":"a","name":"体验卡","cardHours":10,"price":"128.00","validDays":30}]}',
        after: '{"packages":[]}',
      }),
    ).toEqual(['算力卡：体验卡 ¥128.00（10 卡时，30 天） → （无）']);
    expect(changeLines({ before: '{"status":"UNPAID"}', after: '{"status":"PAID","payChannel":"offline"}' })).toEqual(['状态：待支付 → 已支付', '支付方式：— → 线下转账']);
  });
});

describe('运营管理 › 订单', () => {
  it('lists everyone\'s orders with the buyer, filters by buyer and channel, confirms a transfer', async () => {
    renderRoutes({ '/admin/orders': <AdminOrdersPage /> }, '/admin/orders');
    await waitFor(() => expect(screen.getAllByTestId('order-row')).toHaveLength(2));
    expect(screen.getAllByTestId('order-buyer')[0].textContent).toContain('bob（鲍勃）');
    expect(screen.getAllByTestId('order-buyer')[0].textContent).toContain('13800000000');
    expect(backend.calls.find((c) => c.path.endsWith('/orders/action/page'))!.body).toMatchObject({ scope: 'all' });

    const buyer = input('order-filter-buyer');
    fireEvent.change(buyer, { target: { value: 'bob' } });
    fireEvent.keyDown(buyer, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(screen.getAllByTestId('order-row')).toHaveLength(1));
    expect(backend.calls.at(-1)!.body).toMatchObject({ scope: 'all', username: 'bob' });
    await choose('order-filter-channel', '线下转账');
    await waitFor(() => expect(backend.calls.at(-1)!.body).toMatchObject({ payChannel: 'offline' }));

    fireEvent.click(screen.getByTestId('order-confirm'));
    await confirmPop('确认已收到用户 bob（鲍勃） 的转账 ¥128.00');
    await waitFor(() => expect(screen.getAllByTestId('order-row')[0].dataset.status).toBe('PAID'));
    expect(backend.calls.filter((c) => c.path.endsWith('/orders/01/confirm'))).toHaveLength(1);
  });
});
