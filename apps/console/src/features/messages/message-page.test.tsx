import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Message } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../../app/providers';
import { queryClient } from '../../app/query-client';
import { useUserStore } from '../../app/stores/user-store';
import { MessagePage } from './message-page';

/** A tiny in-memory message service behind the faked fetch, answering the contract's shapes. */
let messages: Message[];
let requests: { url: string; body: any }[];

function envelope(data: unknown) {
  return new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), { headers: { 'content-type': 'application/json' } });
}

function message(i: number, viewed: boolean, type: Message['type'] = 'system'): Message {
  return { id: `m${i}`, type, title: `消息 ${i}`, content: `内容 ${i}`, businessType: null, businessId: null, viewed, createTime: 1_700_000_000_000 + i };
}

beforeEach(() => {
  messages = [message(1, false), message(2, false, 'task'), message(3, true)];
  requests = [];
  queryClient.clear();
  useUserStore.getState().clearUser();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      requests.push({ url, body });
      if (url.endsWith('/message/query')) {
        const rows = messages.filter((m) => (body.viewed === undefined || m.viewed === body.viewed) && (!body.type || m.type === body.type));
        return envelope({ list: rows, total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
      }
      if (url.endsWith('/unview/count')) return envelope(messages.filter((m) => !m.viewed).length);
      if (url.endsWith('/message/view')) messages.forEach((m) => body.ids.includes(m.id) && (m.viewed = true));
      if (url.endsWith('/message/view/all')) messages.forEach((m) => (m.viewed = true));
      return envelope(null);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage() {
  const router = createMemoryRouter(
    [
      { path: '/message', element: <MessagePage /> },
      { path: '*', element: <div>目标页</div> },
    ],
    { initialEntries: ['/message'] },
  );
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
}

const rows = () => screen.queryAllByTestId('msg-row');
const countCalls = () => requests.filter((r) => r.url.endsWith('/unview/count')).length;

describe('message centre', () => {
  it('lists messages with their read state and the unread total', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(rows().map((r) => r.getAttribute('data-viewed'))).toEqual(['false', 'false', 'true']);
    expect(await screen.findByText('您有 2 条未读消息')).toBeTruthy();
  });

  it('filters unread messages and by type on the server', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(screen.getByTestId('msg-filter-unread'));
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(requests.filter((r) => r.url.endsWith('/query')).at(-1)!.body).toMatchObject({ viewed: false, pageNum: 1 });
  });

  it('marks all read, then the list and the unread count are fetched again', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    const before = countCalls();
    fireEvent.click(screen.getByTestId('msg-mark-all'));
    await waitFor(() => expect(rows().every((r) => r.getAttribute('data-viewed') === 'true')).toBe(true));
    expect(requests.some((r) => r.url.endsWith('/message/view/all'))).toBe(true);
    await waitFor(() => expect(countCalls()).toBeGreaterThan(before));
    expect(await screen.findByText('暂无未读消息')).toBeTruthy();
  });

  it('marks one message read from its row', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(within(rows()[0]).getByTestId('msg-mark-one'));
    await waitFor(() => expect(rows()[0].getAttribute('data-viewed')).toBe('true'));
    expect(requests.find((r) => r.url.endsWith('/message/view'))!.body).toEqual({ ids: ['m1'] });
  });

  it('opens what a message is about from its expanded row (查看详情), and offers nothing for a system notice', async () => {
    messages = [{ ...message(1, false, 'workorder'), businessType: 'workorder', businessId: 'w 1' }, message(2, false)];
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    for (const row of rows()) fireEvent.click(within(row).getByRole('button', { name: /展开/ }));
    await waitFor(() => expect(screen.getAllByTestId('msg-content')).toHaveLength(2));
    const links = screen.getAllByTestId('msg-open');
    expect(links).toHaveLength(1);
    expect(links[0].getAttribute('href')).toBe('/workorder/detail/w%201');
    expect(links[0].textContent).toBe('查看详情');
  });

  it('opens what a message is about from its title, and reads it; a system notice\'s title is plain text', async () => {
    messages = [{ ...message(1, false, 'task'), title: '训练任务「mnist」运行失败', businessType: 'training', businessId: 't9' }, message(2, false)];
    const router = renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(screen.getAllByTestId('msg-title-link')).toHaveLength(1);
    const link = screen.getByTestId('msg-title-link');
    expect(link.textContent).toBe('训练任务「mnist」运行失败');
    fireEvent.click(link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/t9'));
    await waitFor(() => expect(requests.find((r) => r.url.endsWith('/message/view'))?.body).toEqual({ ids: ['m1'] }));
  });
});
