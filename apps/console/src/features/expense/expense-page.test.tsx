import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ChargeRecord, CompPowerBucket, CompPowers, RecordDay } from '@suanli/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { choose } from '../../test/ui';
import { ExpensePage } from './routes';

const T = new Date('2026-03-02T10:00:00+08:00').getTime();
const charge = (id: string, over: Partial<ChargeRecord> = {}): ChargeRecord => ({
  id,
  orderId: `o${id}`,
  orderNo: `DD2026030200${id.padStart(2, '0')}`,
  amount: '128.00',
  cardHours: '10.00',
  compPowerId: 'b1',
  subCenterId: 'sz',
  subCenterName: '深圳算力分中心',
  cardTypeId: 'a100',
  cardTypeName: 'NVIDIA A100 80G',
  payChannel: 'offline',
  createTime: T,
  ...over,
});
const buckets: CompPowerBucket[] = [
  { id: 'b1', subCenterId: 'sz', subCenterName: '深圳算力分中心', cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G', granted: '10.00', remaining: '7.50', expireTime: T + 86400_000, source: 'order', standardFactor: 1, standardRemaining: '7.50' },
  { id: 'b2', subCenterId: 'gz', subCenterName: '广州算力分中心', cardTypeId: '910b', cardTypeName: '昇腾 910B', granted: '5.00', remaining: '5.00', expireTime: T + 86400_000, source: 'grant', standardFactor: 0.8, standardRemaining: '4.00' },
];

/** The order service's record calls in memory (filters applied as the server does; its rules are in the api tests). */
function fakeBackend() {
  const charges: ChargeRecord[] = [];
  /** Centers whose scheduler holds the user's cluster account (issue 25); none unless a test sets some. */
  const held: CompPowers['held'] = [];
  const calls: { path: string; body: any }[] = [];
  const ok = (data: unknown, code = 0, message = '操作成功') => new Response(JSON.stringify({ message: { code, message }, data }), { headers: { 'content-type': 'application/json' } });
  const matches = (r: ChargeRecord, q: any) =>
    (!q.subCenterId || r.subCenterId === q.subCenterId) && (!q.cardTypeId || r.cardTypeId === q.cardTypeId) && (q.startTime === undefined || r.createTime >= q.startTime) && (q.endTime === undefined || r.createTime < q.endTime);
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const p = new URL(String(input), 'http://localhost').pathname;
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ path: p, body });
    if (p.endsWith('/sub-centers/action/list'))
      return ok([
        { id: 'sz', name: '深圳算力分中心', region: '', description: '', status: 'online', fileServiceUrl: '', cardTypes: [{ id: 'a100', name: 'NVIDIA A100 80G', vendor: '', memoryGB: 80, total: 8, available: 8 }, { id: 'cpu', name: 'CPU 通用型', vendor: '', memoryGB: 0, total: 8, available: 8 }] },
        { id: 'gz', name: '广州算力分中心', region: '', description: '', status: 'online', fileServiceUrl: '', cardTypes: [{ id: '910b', name: '昇腾 910B', vendor: '', memoryGB: 64, total: 8, available: 8 }] },
      ]);
    if (p.includes('/comp-powers/')) return ok({ userId: 'u1', total: '12.50', standardTotal: '11.50', items: buckets, held });
    if (p.endsWith('/records/action/page')) {
      const rows = body.type === 'charge' ? charges.filter((r) => matches(r, body)) : [];
      return ok({ list: rows.slice((body.pageNum - 1) * body.pageSize, body.pageNum * body.pageSize), total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
    }
    if (p.endsWith('/records/action/daily')) {
      const days: RecordDay[] = body.type === 'charge' && charges.some((r) => matches(r, body)) ? [{ day: '2026-03-02', count: charges.filter((r) => matches(r, body)).length, cardHours: '10.00', amount: '128.00' }] : [];
      return ok(days);
    }
    const m = /\/records\/charge\/([^/]+)$/.exec(p);
    if (m) {
      const r = charges.find((x) => x.id === m[1]);
      return r ? ok(r) : ok(null, 1205, '充值记录不存在');
    }
    return ok(null, 1404, '未知接口');
  };
  return { charges, held, calls, fetch };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));
afterEach(() => vi.restoreAllMocks());

const renderAt = (url: string) => renderRoutes({ '/expense': <ExpensePage /> }, url);
const lastCall = (suffix: string) => backend.calls.filter((c) => c.path.endsWith(suffix)).at(-1)!.body;

describe('费用明细', () => {
  it('shows the 标准卡时 total and each bucket in native 卡时 with its factor; 消费记录 first', async () => {
    renderAt('/expense');
    await waitFor(() => expect(screen.getByTestId('expense-standard-total').textContent).toContain('11.50'));
    expect(screen.getByTestId('expense-standard-total').textContent).toContain('标准卡时');
    const [a100, npu] = await screen.findAllByTestId('balance-row');
    expect(a100.textContent).toContain('深圳算力分中心 · NVIDIA A100 80G');
    expect(within(a100).getByTestId('balance-remaining').textContent).toBe('7.50 / 10.00');
    expect(within(npu).getByTestId('balance-standard').textContent).toBe('4.00');
    expect(npu.textContent).toContain('0.8');
    expect(npu.textContent).toContain('赠送');
    expect(screen.getByRole('heading', { level: 4 }).textContent).toBe('费用明细');
    // 消费记录 is the first tab: with nothing consumed it says how records come about.
    expect(await screen.findByText('还没有消费记录。任务运行时按分钟计量，消耗的卡时会显示在这里。')).toBeTruthy();
    // No center holds the account: no warning.
    expect(screen.queryByTestId('balance-held')).toBeNull();
  });

  it('says in Chinese which center holds the cluster account for lack of compute power, and that it lifts by itself', async () => {
    backend.held!.push({ subCenterId: 'sz', subCenterName: '深圳算力分中心', account: 'szu0001' });
    renderAt('/expense');
    const alert = await screen.findByTestId('balance-held');
    expect(alert.textContent).toContain('算力余额不足，深圳算力分中心已限制您的集群账号 szu0001 提交新作业（购买或获赠算力后自动解除）');
    expect(alert.textContent).toContain('通过 SSH 或网页终端提交的作业');
    expect(screen.getAllByTestId('balance-held')).toHaveLength(1);
  });

  it('充值记录: filters by center and card type (the center\'s own types), the chart follows the filters', async () => {
    backend.charges.push(charge('1'), charge('2', { subCenterId: 'gz', subCenterName: '广州算力分中心', cardTypeId: '910b', cardTypeName: '昇腾 910B', amount: '98.00' }));
    renderAt('/expense?tab=charge');
    await waitFor(() => expect(screen.getAllByTestId('charge-row')).toHaveLength(2));
    await waitFor(() => expect(screen.getByTestId('charge-chart').getAttribute('data-days')).toBe('1'));
    await choose('charge-center', '广州算力分中心');
    await waitFor(() => expect(screen.getAllByTestId('charge-row')).toHaveLength(1));
    expect(lastCall('/records/action/page')).toMatchObject({ type: 'charge', subCenterId: 'gz', pageNum: 1 });
    await waitFor(() => expect(lastCall('/records/action/daily')).toEqual({ type: 'charge', subCenterId: 'gz' }));
    // Only 广州's card types are offered now.
    fireEvent.mouseDown(within(screen.getByTestId('charge-card-type')).getByRole('combobox'));
    await waitFor(() => expect([...[...document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')].at(-1)!.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent)).toEqual(['昇腾 910B']));
    await choose('charge-card-type', '昇腾 910B');
    await waitFor(() => expect(lastCall('/records/action/page')).toMatchObject({ subCenterId: 'gz', cardTypeId: '910b' }));
    // A center without that card type drops the card type filter.
    await choose('charge-center', '深圳算力分中心');
    await waitFor(() => expect(lastCall('/records/action/page').cardTypeId).toBeUndefined());
    expect(screen.getAllByTestId('charge-row')).toHaveLength(1);
  });

  it('opens a record\'s detail with what is left of the compute it bought', async () => {
    backend.charges.push(charge('1'));
    renderAt('/expense?tab=charge');
    fireEvent.click(await screen.findByTestId('charge-order-no'));
    const detail = await screen.findByTestId('charge-detail-bucket');
    expect(detail.textContent).toContain('剩余 7.50 / 10.00 卡时');
    expect(screen.getByTestId('charge-detail-order-no').textContent).toBe('DD202603020001');
    expect(document.querySelector('.ant-drawer')!.textContent).toContain('线下转账');
  });

  it('导出 CSV: every record under the filters, page by page, as a UTF-8 file with a BOM that Excel opens', async () => {
    for (let i = 1; i <= 130; i++) backend.charges.push(charge(String(i), { orderNo: `DD20260302${String(i).padStart(4, '0')}` }));
    backend.charges.push(charge('999', { subCenterId: 'gz', subCenterName: '广州算力分中心', cardTypeId: '910b', cardTypeName: '昇腾 910B' }));
    const blobs: Blob[] = [];
    const names: string[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => (blobs.push(b as Blob), 'blob:csv'));
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    renderAt('/expense?tab=charge');
    await choose('charge-center', '深圳算力分中心');
    await waitFor(() => expect(screen.getByText('共 130 条')).toBeTruthy());
    fireEvent.click(screen.getByTestId('charge-export'));
    await waitFor(() => expect(blobs).toHaveLength(1));
    const pages = backend.calls.filter((c) => c.path.endsWith('/records/action/page') && c.body.pageSize === 100);
    expect(pages.map((c) => [c.body.pageNum, c.body.subCenterId])).toEqual([
      [1, 'sz'],
      [2, 'sz'],
    ]);
    expect(names[0]).toMatch(/^充值记录-\d{8}-\d{4}\.csv$/);
    expect(blobs[0].type).toBe('text/csv;charset=utf-8');
    const bytes = new Uint8Array(await blobs[0].arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.slice(3)).split('\r\n');
    expect(lines[0]).toBe('充值时间,订单编号,算力分中心,卡型,卡时,金额（元）,支付方式,充值记录编号');
    expect(lines).toHaveLength(1 + 130 + 1);
    expect(lines[1]).toContain(',DD202603020001,深圳算力分中心,NVIDIA A100 80G,10.00,128.00,线下转账,1');
    expect(lines.join('\n')).not.toContain('广州');
    expect(await screen.findByText('已导出 130 条充值记录')).toBeTruthy();
  });
});
