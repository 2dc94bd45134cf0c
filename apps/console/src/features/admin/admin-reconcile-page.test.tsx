import { screen, waitFor } from '@testing-library/react';
import type { Reconciliation } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { AdminReconcilePage } from './routes';

/** 计量对账 behind a stubbed fetch: the server's arithmetic is tested in outside-jobs.slurm.int.test.ts. */
function fakeBackend() {
  const calls: { path: string; body: any }[] = [];
  let answer: Reconciliation = { days: [], differences: [], running: 0, unavailable: [], reconciled: [] };
  const ok = (data: unknown) => new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), { headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const p = new URL(String(input), 'http://localhost').pathname;
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ path: p, body });
    if (p.endsWith('/user/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles: ['user', 'operator'] });
    if (p.endsWith('/sub-centers/action/list')) return ok([{ id: 'sz', name: '深圳算力分中心', cardTypes: [] }]);
    if (p.endsWith('/metering/action/reconcile')) return ok(answer);
    return new Response(JSON.stringify({ message: { code: 1404, message: '未知接口' }, data: null }), { headers: { 'content-type': 'application/json' } });
  };
  return { calls, fetch, set: (r: Reconciliation) => (answer = r) };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));
const renderAt = () => renderRoutes({ '/admin/reconcile': <AdminReconcilePage /> }, '/admin/reconcile');
const day = { subCenterId: 'sz', subCenterName: '深圳算力分中心', day: '2026-11-27', jobs: 3 };

describe('运营管理 › 计量对账', () => {
  it('asks for the last seven days and says when accounting and draws agree', async () => {
    backend.set({ days: [{ ...day, accountedSeconds: 7200, drawnSeconds: 7200, differenceSeconds: 0 }], differences: [], running: 1, unavailable: ['本机'], reconciled: ['深圳算力分中心'] });
    renderAt();
    expect((await screen.findByTestId('reconcile-summary')).textContent).toContain('记账与扣减一致，没有差异');
    expect(screen.getByTestId('reconcile-summary').textContent).toContain('另有 1 个作业仍在运行');
    expect(screen.getByText('以下分中心没有可读取的调度器记账，未参与对账：本机')).toBeTruthy();
    const row = await screen.findByTestId('reconcile-day');
    expect(row.getAttribute('data-diff')).toBe('0');
    expect(row.textContent).toContain('2.00');
    const body = backend.calls.find((c) => c.path.endsWith('/metering/action/reconcile'))!.body;
    expect(Object.keys(body).sort()).toEqual(['fromDay', 'toDay']);
    expect((Date.parse(body.toDay) - Date.parse(body.fromDay)) / 86_400_000).toBe(6);
  });

  it('lists every difference with its job, kind and amounts', async () => {
    backend.set({
      days: [{ ...day, accountedSeconds: 7200, drawnSeconds: 7140, differenceSeconds: -60 }],
      differences: [{ subCenterId: 'sz', day: '2026-11-27', jobId: '4101', kind: 'outside', meterKey: 'sz:4101', name: 'lammps', account: 'szu0001', accountedSeconds: 120, drawnSeconds: 60, differenceSeconds: -60 }],
      running: 0,
      unavailable: [],
      reconciled: ['深圳算力分中心'],
    });
    renderAt();
    expect((await screen.findByTestId('reconcile-summary')).textContent).toContain('发现 1 处差异');
    const diff = await screen.findByTestId('reconcile-difference');
    for (const text of ['深圳算力分中心', '4101', '外部作业', 'lammps', 'szu0001', '120', '−60 卡秒']) expect(diff.textContent).toContain(text);
    await waitFor(() => expect(screen.getByTestId('reconcile-day').getAttribute('data-diff')).toBe('-60'));
  });

  it('says nothing was reconciled when no center\'s accounting could be read (not a green 没有差异)', async () => {
    backend.set({ days: [], differences: [], running: 0, unavailable: ['深圳算力分中心', '本机'], reconciled: [] });
    renderAt();
    const summary = await screen.findByTestId('reconcile-summary');
    expect(summary.textContent).toContain('没有可对账的分中心');
    expect(summary.textContent).not.toContain('没有差异');
    expect(screen.getByText('以下分中心没有可读取的调度器记账，未参与对账：深圳算力分中心、本机')).toBeTruthy();
  });
});
