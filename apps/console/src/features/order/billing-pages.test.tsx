import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ChargeRecord, Order, Product } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { confirmPop } from '../../test/ui';
import { ExpensePage } from '../expense/routes';
import { PayPage } from '../pay/routes';
import { OrderPage } from './routes';

const product: Product = {
  id: 'p1',
  subCenterId: 'sz',
  subCenterName: '深圳分中心',
  cardTypeId: 'a100',
  cardTypeName: 'A100',
  name: '入门卡',
  cardHours: '100.00',
  price: '1280.00',
  unitPrice: '12.80',
  validDays: 365,
};

function order(id: string, over: Partial<Order> = {}): Order {
  return {
    id,
    orderNo: `DD20261126000${id.slice(1)}`,
    productId: 'p1',
    productName: '入门卡',
    subCenterId: 'sz',
    subCenterName: '深圳分中心',
    cardTypeId: 'a100',
    cardTypeName: 'A100',
    quantity: 2,
    cardHours: '200.00',
    amount: '2560.00',
    status: 'UNPAID',
    payChannel: null,
    createTime: 1_700_000_000_000,
    payTime: null,
    expireTime: Date.now() + 30 * 60_000,
    ownerId: 'u1',
    ...over,
  };
}

/** An in-memory order service behind a stubbed fetch (the server's rules are in the order api tests). */
function fakeBackend() {
  const orders: Order[] = [];
  const charges: ChargeRecord[] = [];
  const calls: { method: string; path: string; body: any }[] = [];
  let roles = ['user'];
  let alipay: 'ok' | 'refused' = 'refused';
  let channels = { alipay: true, offline: true };
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const p = url.pathname;
    calls.push({ method, path: p, body });
    if (p.endsWith('/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles });
    if (p.endsWith('/sub-centers/action/list'))
      return ok([{ id: 'sz', name: '深圳分中心', region: '', description: '', status: 'online', fileServiceUrl: '', cardTypes: [{ id: 'a100', name: 'A100', vendor: '', memoryGB: 80, total: 8, available: 8 }] }]);
    if (p.includes('/comp-powers/'))
      return ok({
        userId: 'u1',
        total: '100.00',
        standardTotal: '100.00',
        items: [{ id: 'b1', subCenterId: 'sz', subCenterName: '深圳分中心', cardTypeId: 'a100', cardTypeName: 'A100', granted: '100.00', remaining: '100.00', expireTime: 1_800_000_000_000, source: 'order', standardFactor: 1, standardRemaining: '100.00' }],
      });
    if (p.endsWith('/pay/channels')) return ok(channels);
    if (p.includes('/sub-center-card/')) return ok([product]);
    if (p.endsWith('/orders/pre')) {
      const o = order(`o${orders.length + 1}`, { quantity: body.quantity, amount: '3840.00', cardHours: '300.00' });
      orders.unshift(o);
      return ok(o);
    }
    if (p.endsWith('/orders/action/page')) {
      const rows = orders.filter((o) => (body.scope === 'all' ? true : o.ownerId === 'u1')).filter((o) => !body.status || o.status === body.status);
      return ok({ list: rows, total: rows.length, pageNum: 1, pageSize: 10 });
    }
    if (p.endsWith('/records/action/page')) return ok({ list: body.type === 'charge' ? charges : [], total: body.type === 'charge' ? charges.length : 0, pageNum: 1, pageSize: 10 });
    const m = /\/orders\/([^/]+)(?:\/(pay|cancel|confirm))?$/.exec(p);
    const o = m && orders.find((x) => x.id === m[1]);
    if (!o) return ok(null, 1205, '订单不存在');
    if (m[2] === 'pay') {
      if (body.channel === 'alipay' && alipay === 'refused') return ok(null, 2505, '支付宝支付暂未开通，请使用线下转账');
      o.payChannel = body.channel;
      return ok({
        order: o,
        channel: body.channel,
        transfer: { bankName: '中国银行深圳分行', accountName: '算力平台', accountNo: '6222 0000 1111', amount: o.amount, remark: o.orderNo, note: '运维人员确认到账后算力到账' },
      });
    }
    if (m[2] === 'confirm') {
      o.status = 'PAID';
      charges.push({ id: 'c1', orderId: o.id, orderNo: o.orderNo, amount: o.amount, cardHours: o.cardHours, compPowerId: 'b2', subCenterId: 'sz', subCenterName: '深圳分中心', cardTypeId: 'a100', cardTypeName: 'A100', payChannel: 'offline', createTime: 1_700_000_100_000 });
    }
    if (m[2] === 'cancel') o.status = 'CANCELLED';
    return ok({ ...o, chargeRecordId: null });
  };
  return { orders, charges, calls, fetch, setRoles: (r: string[]) => (roles = r), setAlipay: (a: typeof alipay) => (alipay = a), setChannels: (c: typeof channels) => (channels = c) };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));

const renderAt = (url: string) => renderRoutes({ '/pay': <PayPage />, '/order': <OrderPage />, '/expense': <ExpensePage /> }, url);
const rows = () => screen.queryAllByTestId('order-row');

describe('购买算力', () => {
  it('posts only the package and quantity, then a refused 支付宝 shows its reason and 线下转账 still works', async () => {
    renderAt('/pay');
    const card = await screen.findByTestId('pay-product');
    expect(card.textContent).toContain('¥1280.00');
    expect(card.textContent).toContain('100.00 卡时');
    expect(card.textContent).toContain('12.80');
    // Browsing creates no order.
    expect(backend.calls.some((c) => c.path.endsWith('/orders/pre'))).toBe(false);
    fireEvent.click(card);
    fireEvent.change(screen.getByLabelText('数量'), { target: { value: '3' } });
    fireEvent.blur(screen.getByLabelText('数量'));
    await waitFor(() => expect(screen.getByTestId('pay-estimate').textContent).toContain('3840.00'));
    fireEvent.click(screen.getByTestId('pay-submit'));
    await screen.findByTestId('pay-order-no');
    const pre = backend.calls.filter((c) => c.path.endsWith('/orders/pre'));
    expect(pre).toHaveLength(1);
    expect(pre[0].body).toEqual({ productId: 'p1', quantity: 3 });
    expect(screen.getByTestId('pay-amount').textContent).toBe('¥3840.00');
    expect(screen.getByTestId('order-countdown').textContent).toMatch(/分/);

    fireEvent.click(await screen.findByTestId('pay-alipay'));
    expect((await screen.findByTestId('pay-refused')).textContent).toContain('支付宝支付暂未开通，请使用线下转账');
    fireEvent.click(screen.getByTestId('pay-offline'));
    const transfer = await screen.findByTestId('pay-transfer');
    expect(transfer.textContent).toContain('6222 0000 1111');
    expect(transfer.textContent).toContain(backend.orders[0].orderNo);
    expect(transfer.textContent).toContain('运维人员确认');
  });
});

describe('购买算力: the channels offered', () => {
  const placeOrder = async () => {
    renderAt('/pay');
    fireEvent.click(await screen.findByTestId('pay-product'));
    fireEvent.click(screen.getByTestId('pay-submit'));
    await screen.findByTestId('pay-order-no');
  };

  it('offers 支付宝支付 only when the gateway has Alipay configured', async () => {
    backend.setChannels({ alipay: false, offline: true });
    await placeOrder();
    expect(await screen.findByTestId('pay-offline')).toBeTruthy();
    expect(screen.queryByTestId('pay-alipay')).toBeNull();
    expect(screen.getByTestId('pay-offline').className).toContain('ant-btn-primary');
  });

  it('says whom to ask when no channel is configured', async () => {
    backend.setChannels({ alipay: false, offline: false });
    await placeOrder();
    expect((await screen.findByTestId('pay-no-channel')).textContent).toContain('联系运维人员');
    expect(screen.queryByTestId('pay-alipay')).toBeNull();
    expect(screen.queryByTestId('pay-offline')).toBeNull();
  });

  it('keeps the order number whole on one line (it moves to the next line rather than breaking inside)', async () => {
    await placeOrder();
    expect(screen.getByTestId('pay-order-no').style.whiteSpace).toBe('nowrap');
  });
});

describe('订单明细', () => {
  it('sends the chosen status tab and shows 去支付 / 取消订单 on unpaid orders, no 确认到账 for users', async () => {
    backend.orders.push(order('o1'), order('o2', { status: 'PAID', payChannel: 'offline' }));
    renderAt('/order');
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(within(rows()[0]).getByTestId('order-status').textContent).toBe('待支付');
    expect(within(rows()[0]).getByTestId('order-pay')).toBeTruthy();
    expect(within(rows()[1]).getByTestId('order-records')).toBeTruthy();
    expect(screen.queryByTestId('order-confirm')).toBeNull();
    expect(screen.queryByTestId('order-scope-all')).toBeNull();
    fireEvent.click(screen.getByTestId('order-tab-PAID'));
    await waitFor(() => expect(rows()).toHaveLength(1));
    const pages = backend.calls.filter((c) => c.path.endsWith('/orders/action/page'));
    expect(pages.at(-1)!.body).toMatchObject({ status: 'PAID', scope: 'mine' });
    expect(pages[0].body.status).toBeUndefined();
    fireEvent.click(screen.getByTestId('order-tab-CANCELLED'));
    await waitFor(() => expect(rows()).toHaveLength(0));
    expect(backend.calls.filter((c) => c.path.endsWith('/orders/action/page')).at(-1)!.body.status).toBe('CANCELLED');
  });

  it('gives operators 全部订单 with 确认到账 on offline transfers; the confirmed order shows 已支付', async () => {
    backend.setRoles(['user', 'operator']);
    const buyer = { username: 'bob', nickname: '鲍勃', phone: '13800138000', email: 'bob@example.com' };
    backend.orders.push(order('o1', { payChannel: 'offline', ownerId: 'u9', buyer, teamId: 't1' }), order('o2', { payChannel: null, ownerId: 'u9', buyer: { ...buyer, phone: null, email: null } }));
    renderAt('/order');
    fireEvent.click(await screen.findByTestId('order-scope-all'));
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(backend.calls.filter((c) => c.path.endsWith('/orders/action/page')).at(-1)!.body.scope).toBe('all');
    // Who bought it, by name and how to reach them — never the internal id.
    expect(within(rows()[0]).getByTestId('order-buyer').textContent).toBe('bob（鲍勃）13800138000 · bob@example.com');
    expect(within(rows()[1]).getByTestId('order-buyer').textContent).toBe('bob（鲍勃）');
    expect(document.body.textContent).not.toContain('u9');
    // Bought for a team: the operator confirming the transfer sees where the compute power goes.
    expect(within(rows()[0]).getByTestId('order-for-team').textContent).toContain('团队算力');
    expect(within(rows()[1]).queryByTestId('order-for-team')).toBeNull();
    expect(within(rows()[1]).queryByTestId('order-confirm')).toBeNull();
    fireEvent.click(within(rows()[0]).getByTestId('order-confirm'));
    await confirmPop('确认已收到用户 bob（鲍勃） 的转账 ¥2560.00');
    await waitFor(() => expect(within(rows()[0]).getByTestId('order-status').textContent).toBe('已支付'));
    expect(backend.calls.filter((c) => c.path.endsWith('/confirm'))).toHaveLength(1);
  });

  it('refreshes on comp-power.changed (an operator confirmed elsewhere)', async () => {
    backend.orders.push(order('o1', { payChannel: 'offline' }));
    renderAt('/order');
    await waitFor(() => expect(within(rows()[0]).getByTestId('order-status').textContent).toBe('待支付'));
    backend.orders[0].status = 'PAID';
    applyLiveEvent(queryClient, { businessType: 'comp-power.changed', data: {} });
    await waitFor(() => expect(within(rows()[0]).getByTestId('order-status').textContent).toBe('已支付'));
  });
});
