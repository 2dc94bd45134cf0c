import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ConsumeRecord, ConsumeStats } from '@suanli/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { formatTime } from '../../shared/time';
import { choose } from '../../test/ui';
import { ExpensePage } from './routes';

const T = new Date('2026-03-02T10:00:00+08:00').getTime();
const consume = (id: string, over: Partial<ConsumeRecord> = {}): ConsumeRecord => ({
  id,
  taskId: 't1',
  taskKind: 'training',
  taskName: '图像分类训练',
  subCenterId: 'sz',
  subCenterName: '深圳算力分中心',
  cardTypeId: 'a100',
  cardTypeName: 'NVIDIA A100 80G',
  cardNum: 2,
  nodeNum: 2,
  billedCards: 4,
  day: '2026-03-02',
  startTime: T,
  endTime: T + 900_000,
  cardHours: '1.00',
  cardSeconds: 3600,
  compPowerId: 'b1',
  createTime: T,
  updateTime: T + 900_000,
  ...over,
});

/** The record calls of 消费记录 in memory, filtered as the server does (its rules: metering.api.test.ts). */
function fakeBackend() {
  const records: ConsumeRecord[] = [];
  const calls: { path: string; body: any }[] = [];
  const ok = (data: unknown, code = 0, message = '操作成功') => new Response(JSON.stringify({ message: { code, message }, data }), { headers: { 'content-type': 'application/json' } });
  const matches = (r: ConsumeRecord, q: any) =>
    (!q.subCenterId || r.subCenterId === q.subCenterId) && (!q.cardTypeId || r.cardTypeId === q.cardTypeId) && (!q.taskId || r.taskId === q.taskId) && (q.startTime === undefined || r.startTime >= q.startTime) && (q.endTime === undefined || r.startTime < q.endTime);
  const hours = (s: number) => (s / 3600).toFixed(2);
  const group = <K extends string>(rows: ConsumeRecord[], key: (r: ConsumeRecord) => string, shape: (r: ConsumeRecord) => Record<K, string>) => {
    const m = new Map<string, { first: ConsumeRecord; s: number }>();
    for (const r of rows) m.set(key(r), { first: m.get(key(r))?.first ?? r, s: (m.get(key(r))?.s ?? 0) + r.cardSeconds });
    return [...m.values()].map(({ first, s }) => ({ ...shape(first), cardSeconds: s, cardHours: hours(s) }));
  };
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const p = new URL(String(input), 'http://localhost').pathname;
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ path: p, body });
    if (p.endsWith('/sub-centers/action/list'))
      return ok([
        { id: 'sz', name: '深圳算力分中心', cardTypes: [{ id: 'a100', name: 'NVIDIA A100 80G' }] },
        { id: 'gz', name: '广州算力分中心', cardTypes: [{ id: '910b', name: '昇腾 910B' }] },
      ]);
    if (p.includes('/comp-powers/')) return ok({ userId: 'u1', total: '0.00', standardTotal: '0.00', items: [] });
    const rows = () => records.filter((r) => matches(r, body));
    if (p.endsWith('/records/action/page')) {
      const list = body.type === 'consume' ? rows() : [];
      return ok({ list: list.slice((body.pageNum - 1) * body.pageSize, body.pageNum * body.pageSize), total: list.length, pageNum: body.pageNum, pageSize: body.pageSize });
    }
    if (p.endsWith('/records/action/daily')) return ok(body.type === 'consume' ? group(rows(), (r) => r.day, (r) => ({ day: r.day })).map((d) => ({ day: d.day, count: new Set(rows().filter((r) => r.day === d.day).map((r) => r.taskId)).size, cardHours: d.cardHours })) : []);
    if (p.endsWith('/records/consume/action/stats')) {
      const r = rows();
      const total = r.reduce((s, x) => s + x.cardSeconds, 0);
      const stats: ConsumeStats = {
        total: hours(total),
        totalSeconds: total,
        byDay: group(r, (x) => x.day, (x) => ({ day: x.day })),
        byCenter: group(r, (x) => x.subCenterId, (x) => ({ subCenterId: x.subCenterId, subCenterName: x.subCenterName })),
        byCardType: group(r, (x) => x.cardTypeId, (x) => ({ cardTypeId: x.cardTypeId, cardTypeName: x.cardTypeName })),
        byTask: group(r, (x) => x.taskId, (x) => ({ taskId: x.taskId, taskKind: x.taskKind, taskName: x.taskName })),
      };
      return ok(stats);
    }
    const m = /\/records\/consume\/([^/]+)$/.exec(p);
    if (m) {
      const r = records.find((x) => x.id === m[1]);
      return r ? ok(r) : ok(null, 1205, '消费记录不存在');
    }
    return ok(null, 1404, '未知接口');
  };
  return { records, calls, fetch };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));
afterEach(() => vi.restoreAllMocks());

const renderAt = (url: string) => renderRoutes({ '/expense': <ExpensePage />, '/training/detail/:type/:id': <div data-testid="task-page">任务详情</div> }, url);
const lastCall = (suffix: string) => backend.calls.filter((c) => c.path.endsWith(suffix)).at(-1)!.body;
const slurm = { taskId: 't2', taskKind: 'slurm', taskName: '分子动力学', subCenterId: 'gz', subCenterName: '广州算力分中心', cardTypeId: '910b', cardTypeName: '昇腾 910B', billedCards: 1, cardNum: 0, nodeNum: 1, cardSeconds: 1800, cardHours: '0.50' };

describe('消费记录', () => {
  it('lists what tasks drew, with the day chart, the split per center and card type, and the total', async () => {
    backend.records.push(consume('1'), consume('2', { day: '2026-03-01', startTime: T - 86400_000 }), consume('3', slurm));
    renderAt('/expense');
    await waitFor(() => expect(screen.getAllByTestId('consume-row')).toHaveLength(3));
    expect(screen.getAllByTestId('consume-row')[0].textContent).toContain('图像分类训练');
    expect(screen.getAllByTestId('consume-row')[0].textContent).toContain('深圳算力分中心 · NVIDIA A100 80G');
    await waitFor(() => expect(screen.getByTestId('consume-chart').getAttribute('data-days')).toBe('2'));
    expect(screen.getByTestId('consume-share').getAttribute('data-centers')).toBe('2');
    expect(screen.getByTestId('consume-share').getAttribute('data-card-types')).toBe('2');
    expect(screen.getByTestId('consume-total').textContent).toBe('合计 2.50 卡时');
    expect(lastCall('/records/action/daily')).toEqual({ type: 'consume' });
  });

  it('filters by center and by task: list, chart and totals follow; the task choices are the tasks that consumed', async () => {
    backend.records.push(consume('1'), consume('3', slurm));
    renderAt('/expense?tab=consume');
    await waitFor(() => expect(screen.getAllByTestId('consume-row')).toHaveLength(2));
    await choose('consume-task-filter', '分子动力学（0.50 卡时）');
    await waitFor(() => expect(screen.getAllByTestId('consume-row')).toHaveLength(1));
    expect(lastCall('/records/action/page')).toMatchObject({ type: 'consume', taskId: 't2', pageNum: 1 });
    await waitFor(() => expect(lastCall('/records/action/daily')).toEqual({ type: 'consume', taskId: 't2' }));
    await waitFor(() => expect(screen.getByTestId('consume-total').textContent).toBe('合计 0.50 卡时'));
    // Clearing the task and choosing a center.
    fireEvent.mouseDown(within(screen.getByTestId('consume-task-filter')).getByRole('combobox'));
    await choose('consume-center', '深圳算力分中心');
    await waitFor(() => expect(lastCall('/records/action/page')).toMatchObject({ subCenterId: 'sz' }));
  });

  it('opens a task\'s record with its cards and span, and links to the task\'s page', async () => {
    backend.records.push(consume('1'));
    renderAt('/expense');
    fireEvent.click(await screen.findByTestId('consume-task'));
    expect((await screen.findByTestId('consume-detail-cards')).textContent).toBe('4 卡（每节点 2 卡 × 2 节点）');
    expect(screen.getByTestId('consume-detail-hours').textContent).toBe('1.00');
    const link = screen.getByTestId('consume-detail-task');
    expect(link.getAttribute('href')).toBe('/training/detail/train/t1');
    fireEvent.click(link);
    expect(await screen.findByTestId('task-page')).toBeTruthy();
  });

  it('opens narrowed to one task from ?taskId=', async () => {
    backend.records.push(consume('1'), consume('3', slurm));
    renderAt('/expense?tab=consume&taskId=t2');
    await waitFor(() => expect(screen.getAllByTestId('consume-row')).toHaveLength(1));
    expect(lastCall('/records/action/page')).toMatchObject({ taskId: 't2' });
  });

  it('导出 CSV: every record under the filters, UTF-8 with a BOM, one row per record with exact card-seconds', async () => {
    for (let i = 1; i <= 120; i++) backend.records.push(consume(String(i), { taskName: i === 1 ? '=危险,名字' : '图像分类训练' }));
    backend.records.push(consume('999', slurm));
    const blobs: Blob[] = [];
    const names: string[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => (blobs.push(b as Blob), 'blob:csv'));
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    renderAt('/expense');
    await choose('consume-center', '深圳算力分中心');
    await waitFor(() => expect(screen.getByText('共 120 条')).toBeTruthy());
    fireEvent.click(screen.getByTestId('consume-export'));
    await waitFor(() => expect(blobs).toHaveLength(1));
    expect(names[0]).toMatch(/^消费记录-\d{8}-\d{4}\.csv$/);
    const bytes = new Uint8Array(await blobs[0].arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.slice(3)).split('\r\n');
    expect(lines[0]).toBe('日期,任务名称,任务类别,任务编号,算力分中心,卡型,计费卡数,开始时间,结束时间,消耗卡时,消耗卡秒,消费记录编号');
    expect(lines).toHaveLength(1 + 120 + 1);
    expect(lines[1]).toBe(`2026-03-02,"'=危险,名字",训练任务,t1,深圳算力分中心,NVIDIA A100 80G,4,${formatTime(T)},${formatTime(T + 900_000)},1.00,3600,1`);
    expect(lines.join('\n')).not.toContain('广州');
    expect(await screen.findByText('已导出 120 条消费记录')).toBeTruthy();
  });
});
