import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ESHELL_BASE, USER_BASE, type AccessSession, type AccessSessionAdmin, type UserInfo } from '@suanli/contracts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installChineseNames } from '../../app/chinese-names';
import { queryClient } from '../../app/query-client';
import { useUserStore } from '../../app/stores/user-store';
import { renderRoutes } from '../../test/render-routes';
import { END_REASON_LABELS, endReasonLabel } from './access-records';
import { EshellPage } from './routes';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);

const own: AccessSession[] = [
  { id: 's3', kind: 'proxy', centerId: 'sz', centerName: '深圳算力分中心', account: 'alice_sz', target: 'task-9', startTime: T0 + 7_200_000, endTime: null, endReason: '' },
  { id: 's2', kind: 'shell', centerId: 'sz', centerName: '深圳算力分中心', account: 'alice_sz', target: 'ssh', startTime: T0, endTime: T0 + 125_000, endReason: 'idle' },
  { id: 's1', kind: 'shell', centerId: 'bj', centerName: '北京算力分中心', account: 'alice_bj', target: 'local', startTime: T0 - 60_000, endTime: T0 - 30_000, endReason: 'exited' },
];
const everyone: AccessSessionAdmin[] = [{ ...own[1]!, id: 'a1', userId: 'u-bob', clientIp: '10.0.0.7', endReason: 'revoked' }];

let requests: { path: string; body: any }[];
let me: UserInfo;

function envelope(data: unknown) {
  return new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), { headers: { 'content-type': 'application/json' } });
}

/** The gateway: no center offers a terminal (none opens), the user `me`, and the two record lists. */
function stubGateway() {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), 'http://console.test');
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      requests.push({ path: url.pathname, body });
      if (url.pathname === `${ESHELL_BASE}/centers`) return envelope([]);
      if (url.pathname === `${USER_BASE}/user`) return envelope(me);
      if (url.pathname === `${ESHELL_BASE}/session/page`) {
        const list = own.filter((s) => !body.kind || s.kind === body.kind);
        return envelope({ list, total: 25, pageNum: body.pageNum, pageSize: body.pageSize });
      }
      if (url.pathname === `${ESHELL_BASE}/admin/session/page`) return envelope({ list: everyone, total: 1, pageNum: body.pageNum, pageSize: body.pageSize });
      return new Response('not found', { status: 404 });
    }),
  );
}

const pageCalls = (path: string) => requests.filter((r) => r.path === `${ESHELL_BASE}${path}`).map((r) => r.body);
const rows = () => screen.queryAllByTestId('eshell-session-row');
const headers = () => within(screen.getByTestId('eshell-sessions')).getAllByRole('columnheader').map((h) => h.textContent);
const wait = { timeout: 5000 };

function renderPage() {
  renderRoutes({ '/slurm-template/eshell': <EshellPage /> }, '/slurm-template/eshell');
}

// The app's Chinese accessible names (main.tsx installs them), so the page reads as a person hears it.
let stopChineseNames: () => void;
beforeAll(() => {
  stopChineseNames = installChineseNames();
});
afterAll(() => stopChineseNames());

beforeEach(() => {
  requests = [];
  me = { id: 'u1', username: 'alice', nickname: 'Alice', phone: null, email: null, headImage: null, createTime: 1, roles: ['user'] };
  queryClient.clear();
  useUserStore.getState().clearUser();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
  stubGateway();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('访问记录 on the Shell工具 page', () => {
  it('lists the caller’s own records with Chinese labels, the open one as 进行中', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3), wait);
    expect(pageCalls('/session/page')[0]).toEqual({ pageNum: 1, pageSize: 10 });

    const [open, idle, exited] = rows();
    expect(open!.dataset.open).toBe('true');
    expect(open!.textContent).toContain('开发环境');
    expect(open!.textContent).toContain('进行中');
    const link = within(open!).getByTestId('eshell-session-task');
    expect(link.textContent).toBe('task-9');
    expect(link.getAttribute('href')).toBe('/training/detail/develop/task-9');

    expect(idle!.textContent).toContain('终端');
    expect(idle!.textContent).toContain('SSH');
    expect(idle!.textContent).toContain('深圳算力分中心');
    expect(idle!.textContent).toContain('alice_sz');
    expect(idle!.textContent).toContain('2分5秒');
    expect(idle!.textContent).toContain('空闲超时');
    expect(exited!.textContent).toContain('本机');
    expect(exited!.textContent).toContain('终端退出');

    // Screen readers hear Chinese, pagination arrows included (antd's icons say left / right; app/chinese-names.ts).
    const labels = [...screen.getByTestId('eshell-records').querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label') ?? '');
    expect(labels).toContain('下一页');
    expect(labels.filter((l) => !/[\u4e00-\u9fa5]/.test(l))).toEqual([]);

    // Operators' extras are absent for a plain user.
    expect(screen.queryByTestId('eshell-sessions-all')).toBeNull();
    expect(headers()).toEqual(['类型', '分中心', '集群账号', '目标', '开始时间', '结束时间', '时长', '结束原因']);
  });

  it('filters by type (sends kind) and pages on the server (sends pageNum)', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3), wait);
    fireEvent.click(within(screen.getByTestId('eshell-sessions-kind')).getByText('开发环境'));
    await waitFor(() => expect(pageCalls('/session/page').at(-1)).toEqual({ pageNum: 1, pageSize: 10, kind: 'proxy' }), wait);
    await waitFor(() => expect(rows()).toHaveLength(1), wait);

    fireEvent.click(within(screen.getByTestId('eshell-records')).getByTitle('下一页'));
    await waitFor(() => expect(pageCalls('/session/page').at(-1)).toEqual({ pageNum: 2, pageSize: 10, kind: 'proxy' }), wait);

    // Changing the filter goes back to the first page.
    fireEvent.click(within(screen.getByTestId('eshell-sessions-kind')).getByText('终端'));
    await waitFor(() => expect(pageCalls('/session/page').at(-1)).toEqual({ pageNum: 1, pageSize: 10, kind: 'shell' }), wait);
  });

  it('gives operators a 全部用户 switch that lists everyone’s records with the user and source address', async () => {
    me = { ...me, roles: ['user', 'operator'] };
    renderPage();
    const toggle = await screen.findByTestId('eshell-sessions-all', undefined, wait);
    expect(toggle.getAttribute('aria-label')).toBe('全部用户');
    expect(pageCalls('/admin/session/page')).toHaveLength(0);

    fireEvent.click(toggle);
    await waitFor(() => expect(pageCalls('/admin/session/page')).toEqual([{ pageNum: 1, pageSize: 10 }]), wait);
    await waitFor(() => expect(rows().map((r) => r.dataset.id)).toEqual(['a1']), wait);
    expect(headers()).toEqual(['用户', '类型', '分中心', '集群账号', '目标', '开始时间', '结束时间', '时长', '结束原因', '来源 IP']);
    expect(rows()[0]!.textContent).toContain('u-bob');
    expect(rows()[0]!.textContent).toContain('10.0.0.7');
    expect(rows()[0]!.textContent).toContain('登录失效');

    // Back to the caller's own.
    fireEvent.click(toggle);
    await waitFor(() => expect(rows()).toHaveLength(3), wait);
    expect(headers()).toEqual(['类型', '分中心', '集群账号', '目标', '开始时间', '结束时间', '时长', '结束原因']);
  });

  it('labels every end reason the server records, and unknown ones as 已结束', () => {
    for (const r of ['closed', 'exited', 'idle', 'revoked', 'error', 'refused', 'server', 'stopped', 'gateway-lost']) {
      expect(END_REASON_LABELS[r], r).toMatch(/[\u4e00-\u9fa5]/);
    }
    expect(endReasonLabel({ endTime: 1, endReason: 'mystery' })).toBe('已结束');
    expect(endReasonLabel({ endTime: null, endReason: '' })).toBe('—');
  });
});
