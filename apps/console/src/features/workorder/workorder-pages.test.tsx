import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { DICTS, type WorkOrderAttachment, type WorkOrderDetail, type WorkOrderReply } from '@suanli/contracts';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { choose, errors, input } from '../../test/ui';
import { WorkorderDetailPage, WorkorderPage } from './routes';

/** An in-memory work-order service behind a stubbed fetch (the server's own rules are in workorder.api.test.ts). */
function fakeBackend() {
  const orders: WorkOrderDetail[] = [];
  const calls: { method: string; path: string; body: unknown }[] = [];
  let roles = ['user'];
  let uploads = 0;
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const p = url.pathname;
    calls.push({ method, path: p, body });
    const dict = /\/dicts\/action\/query\/dict\/(\w+)$/.exec(p);
    if (dict) return ok(DICTS[dict[1]] ?? []);
    if (p.endsWith('/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles });
    if (p.endsWith('/tasks/action/page')) {
      const training = [{ id: 't1', kind: 'training', type: 'train', name: 'resnet-训练', createTime: 5 }];
      return ok(p.includes('/training/') ? { list: training, total: 1 } : { list: [{ id: 's1', kind: 'slurm', type: 'custom', name: 'vasp-计算', createTime: 6 }], total: 1 });
    }
    const task = /\/(training|slurm)\/api\/v1\/tasks\/([^/]+)$/.exec(p);
    if (task) return task[1] === 'slurm' && task[2] === 's1' ? ok({ id: 's1', kind: 'slurm', type: 'custom', name: 'vasp-计算', events: [] }) : ok(null, 1205, '任务不存在');
    if (p.endsWith('/workorders/action/page')) {
      const rows = orders
        .filter((o) => (body.scope === 'all' ? true : o.ownerId === 'u1'))
        .filter((o) => !body.state || o.state === body.state)
        .map(({ description: _d, attachments: _a, replies: _r, ...o }) => o);
      return ok({ list: rows, total: rows.length });
    }
    if (p.endsWith('/attachments') && method === 'POST') {
      uploads += 1;
      const file = (body as FormData).get('file') as File;
      return ok({ id: `a${uploads}`, name: file.name, size: file.size, contentType: file.type } satisfies WorkOrderAttachment);
    }
    if (/\/attachments\/[^/]+$/.test(p)) return new Response(new Blob(['png']), { status: 200, headers: { 'content-type': 'image/png' } });
    if (p.endsWith('/workorders') && method === 'POST') {
      const o = order(`w${orders.length + 1}`, { title: body.title, type: body.type, description: body.description, state: 'PENDING' });
      o.attachments = (body.attachmentIds ?? []).map((id: string) => ({ id, name: 'shot.png', size: 3, contentType: 'image/png' }));
      orders.unshift(o);
      return ok(o);
    }
    const m = /\/workorders\/([^/]+)(?:\/(replies|resolve|close))?$/.exec(p);
    const o = m && orders.find((x) => x.id === m[1]);
    if (!o) return ok(null, 1205, '工单不存在');
    if (m[2] === 'replies') {
      if (o.state === 'CLOSED') return ok(null, 2701, '工单已关闭，不能再回复');
      o.replies.push(reply(`r${o.replies.length + 1}`, 'alice', 'user', body.content));
      o.lastReplyBy = 'user';
    }
    if (m[2] === 'close') o.state = 'CLOSED';
    return ok(o);
  };
  return { orders, calls, fetch, setRoles: (r: string[]) => (roles = r) };
}

function reply(id: string, authorName: string, authorRole: WorkOrderReply['authorRole'], content: string): WorkOrderReply {
  return { id, authorId: authorRole === 'operator' ? 'op1' : 'u1', authorName, authorRole, content, attachments: [], createTime: 1_700_000_100_000 };
}

function order(id: string, over: Partial<WorkOrderDetail> = {}): WorkOrderDetail {
  return {
    id,
    orderNo: `GD20261126000${id.slice(1)}`,
    type: 'task',
    title: '任务一直排队',
    state: 'PENDING',
    ownerId: 'u1',
    ownerName: 'alice',
    link: null,
    replyCount: 0,
    lastReplyBy: null,
    createTime: 1_700_000_000_000,
    updateTime: 1_700_000_000_000,
    description: '第一行\n第二行 <b>不是HTML</b>',
    attachments: [],
    replies: [],
    ...over,
  };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));
beforeEach(() => {
  // Spies, not an Object.assign on the shared URL class: that replaced its statics for every later file.
  vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:shot');
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
});

const renderAt = (url: string) => renderRoutes({ '/workorder': <WorkorderPage />, '/workorder/detail/:id': <WorkorderDetailPage /> }, url);
const rows = () => screen.queryAllByTestId('wo-row');

describe('work order list', () => {
  it('shows the caller\'s work orders with coloured state tags and 待您回复 where an operator answered last', async () => {
    backend.orders.push(
      order('w1', { title: '账号无法登录', type: 'account', state: 'PROCESSING', lastReplyBy: 'operator', replyCount: 1 }),
      order('w2', { title: '费用疑问', type: 'billing', state: 'CLOSED', lastReplyBy: 'operator' }),
      order('w3', { title: '存储满了', type: 'storage', state: 'PENDING' }),
    );
    renderAt('/workorder');
    await waitFor(() => expect(rows()).toHaveLength(3));
    const [r1, r2, r3] = rows();
    expect(within(r1).getByTestId('wo-state').textContent).toBe('处理中');
    expect(within(r1).getByTestId('wo-state').className).toContain('blue');
    expect(within(r1).getByText('账号问题')).toBeTruthy();
    expect(within(r1).getByTestId('wo-awaiting').textContent).toContain('待您回复');
    // A closed one needs no answer any more.
    expect(within(r2).getByTestId('wo-state').textContent).toBe('已关闭');
    expect(within(r2).queryByTestId('wo-awaiting')).toBeNull();
    expect(within(r3).getByTestId('wo-state').textContent).toBe('待处理');
    expect(within(r3).getByTestId('wo-state').className).toContain('orange');
    expect(within(r3).getByTestId('wo-title-link').getAttribute('href')).toBe('/workorder/detail/w3');
    // A user sees no operator tab and no 提交人 column.
    expect(screen.queryByTestId('wo-tab-all')).toBeNull();
    expect(screen.queryByText('提交人')).toBeNull();
    expect(backend.calls.find((c) => c.path.endsWith('/workorders/action/page'))?.body).toEqual({ pageNum: 1, pageSize: 10, scope: 'mine' });
  });

  it('invites the first work order when there is none, and filters by state on the server', async () => {
    renderAt('/workorder');
    expect(await screen.findByText(/还没有工单/)).toBeTruthy();
    await choose('wo-state-filter', '已解决');
    await waitFor(() => expect(backend.calls.filter((c) => c.path.endsWith('/action/page')).at(-1)?.body).toMatchObject({ state: 'RESOLVED', scope: 'mine' }));
    expect(await screen.findByText('没有符合条件的工单')).toBeTruthy();
  });

  it('gives operators a 全部工单 tab that reads scope all and shows who submitted', async () => {
    backend.setRoles(['user', 'operator']);
    backend.orders.push(order('w1', { ownerId: 'u2', ownerName: 'bob', title: 'bob 的问题' }));
    renderAt('/workorder');
    fireEvent.click(await screen.findByTestId('wo-tab-all'));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(backend.calls.filter((c) => c.path.endsWith('/action/page')).at(-1)?.body).toMatchObject({ scope: 'all' });
    expect(within(rows()[0]).getByTestId('wo-owner').textContent).toBe('bob');
    expect(screen.getAllByText('提交人').length).toBeGreaterThan(0);
  });

  it('opens 全部工单 from 运营管理 (?tab=all), keeps the tab in the URL, and a live event re-reads it (no timer)', async () => {
    backend.setRoles(['user', 'operator']);
    const router = renderAt('/workorder?tab=all');
    await waitFor(() => expect(backend.calls.filter((c) => c.path.endsWith('/action/page')).at(-1)?.body).toMatchObject({ scope: 'all' }));
    expect(rows()).toHaveLength(0);
    backend.orders.push(order('w9', { ownerId: 'u3', ownerName: 'carol', title: '新提交的工单' }));
    act(() => applyLiveEvent(queryClient, { businessType: 'workorder.changed', data: order('w9', { ownerId: 'u3' }) }));
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.click(screen.getByTestId('wo-tab-mine'));
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });
});

describe('新建工单', () => {
  it('asks for what is missing in Chinese, then posts the contract\'s body and opens the new work order', async () => {
    const router = renderAt('/workorder');
    fireEvent.click(await screen.findByTestId('wo-create'));
    fireEvent.click(await screen.findByTestId('wo-create-submit'));
    await waitFor(() => expect(errors()).toEqual(['请选择问题类型', '请输入标题', '请描述您遇到的问题']));
    expect(backend.calls.some((c) => c.path.endsWith('/workorders') && c.method === 'POST')).toBe(false);

    await choose('wo-type', '任务问题');
    fireEvent.change(input('wo-title'), { target: { value: '  训练任务一直排队  ' } });
    fireEvent.change(input('wo-description'), { target: { value: '提交后 2 小时仍在排队\n请帮忙看看' } });
    await choose('wo-task', 'vasp-计算（科学计算）');
    const file = new File(['png'], 'shot.png', { type: 'image/png' });
    const picker = screen.getByTestId('wo-create-shots').querySelector('input[type=file]') ?? document.querySelector('input[type=file]')!;
    await act(async () => {
      fireEvent.change(picker, { target: { files: [file] } });
    });
    await waitFor(() => expect(backend.calls.some((c) => c.path.endsWith('/attachments'))).toBe(true));
    await waitFor(() => expect((screen.getByTestId('wo-create-submit') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId('wo-create-submit'));

    await waitFor(() => expect(router.state.location.pathname).toBe('/workorder/detail/w1'));
    expect(backend.calls.find((c) => c.path.endsWith('/workorders') && c.method === 'POST')?.body).toEqual({
      type: 'task',
      title: '训练任务一直排队',
      description: '提交后 2 小时仍在排队\n请帮忙看看',
      taskId: 's1',
      attachmentIds: ['a1'],
    });
    expect(await screen.findByTestId('wo-detail-title')).toHaveProperty('textContent', '训练任务一直排队');
    expect(await screen.findByText('工单已提交')).toBeTruthy();
  });

  it('opens on the problem a page linked from (?new=task&taskId=): type and task chosen, the link spent', async () => {
    const router = renderAt('/workorder?new=task&taskId=s1');
    await screen.findByTestId('wo-create-form');
    await waitFor(() => expect(screen.getByTestId('wo-type').textContent).toContain('任务问题'));
    await waitFor(() => expect(screen.getByTestId('wo-task').textContent).toContain('vasp-计算（科学计算）'));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    fireEvent.change(input('wo-title'), { target: { value: '任务失败' } });
    fireEvent.change(input('wo-description'), { target: { value: '退出码 1' } });
    fireEvent.click(screen.getByTestId('wo-create-submit'));
    await waitFor(() => expect(backend.calls.find((c) => c.path.endsWith('/workorders') && c.method === 'POST')?.body).toEqual({ type: 'task', title: '任务失败', description: '退出码 1', taskId: 's1' }));
  });

  it('refuses a file that is not an image without uploading it', async () => {
    renderAt('/workorder');
    fireEvent.click(await screen.findByTestId('wo-create'));
    const picker = (await screen.findByTestId('wo-create-shots')).querySelector('input[type=file]') ?? document.querySelector('input[type=file]')!;
    await act(async () => {
      fireEvent.change(picker, { target: { files: [new File(['x'], 'log.txt', { type: 'text/plain' })] } });
    });
    expect(await screen.findByText('截图仅支持 PNG、JPG、WEBP 格式的图片')).toBeTruthy();
    expect(backend.calls.some((c) => c.path.endsWith('/attachments'))).toBe(false);
  });
});

describe('工单详情', () => {
  it('shows the facts and the conversation as plain text, operators marked 运维人员, screenshots as thumbnails', async () => {
    backend.orders.push(
      order('w1', {
        state: 'PROCESSING',
        attachments: [{ id: 'a9', name: 'err.png', size: 3, contentType: 'image/png' }],
        replies: [reply('r1', 'ops-wang', 'operator', '您好，请提供作业编号。')],
      }),
    );
    renderAt('/workorder/detail/w1');
    const messages = await screen.findAllByTestId('wo-message');
    expect(messages.map((m) => m.dataset.role)).toEqual(['user', 'operator']);
    expect(within(messages[0]).getByTestId('wo-message-text').textContent).toBe('第一行\n第二行 <b>不是HTML</b>');
    expect(messages[0].querySelector('b')).toBeNull();
    expect(within(messages[1]).getByText('运维人员')).toBeTruthy();
    expect(screen.getByTestId('wo-detail-no').textContent).toBe('GD202611260001');
    expect(screen.getByTestId('wo-state').textContent).toBe('处理中');
    expect(screen.getByText('未关联')).toBeTruthy();
    // The screenshot's bytes come through the pipeline (with the token) and show from an object URL.
    await waitFor(() => expect(within(messages[0]).getByRole('img').getAttribute('src')).toBe('blob:shot'));
    const shot = backend.calls.find((c) => c.path.endsWith('/attachments/a9'));
    expect(shot?.method).toBe('GET');
    // A user may close but not resolve.
    expect(screen.getByTestId('wo-close')).toBeTruthy();
    expect(screen.queryByTestId('wo-resolve')).toBeNull();
    expect(screen.getByTestId('wo-reply-form')).toBeTruthy();
  });

  it('links the linked task to its detail page, in whichever family it is; a deleted one says so', async () => {
    backend.orders.push(order('w1', { link: { type: 'task', id: 's1', name: 'vasp-计算' } }), order('w2', { link: { type: 'task', id: 'gone', name: '' } }));
    renderAt('/workorder/detail/w1');
    expect((await screen.findByTestId('wo-task-link')).getAttribute('href')).toBe('/slurm-task/detail/custom/s1');
    cleanup();
    renderAt('/workorder/detail/w2');
    expect(await screen.findByText('任务已删除')).toBeTruthy();
  });

  it('hides the reply box of a closed work order and says so', async () => {
    backend.orders.push(order('w1', { state: 'CLOSED' }));
    renderAt('/workorder/detail/w1');
    expect((await screen.findByTestId('wo-closed')).textContent).toContain('工单已关闭');
    expect(screen.queryByTestId('wo-reply-form')).toBeNull();
    expect(screen.queryByTestId('wo-close')).toBeNull();
  });

  it('sends a reply, shows it in the conversation and follows an operator\'s answer pushed by the socket', async () => {
    backend.orders.push(order('w1', { state: 'PENDING' }));
    renderAt('/workorder/detail/w1');
    fireEvent.click(await screen.findByTestId('wo-reply-submit'));
    await waitFor(() => expect(errors()).toEqual(['请输入回复内容']));
    fireEvent.change(input('wo-reply-text'), { target: { value: '补充：作业号 1234' } });
    fireEvent.click(screen.getByTestId('wo-reply-submit'));
    await waitFor(() => expect(screen.getAllByTestId('wo-message')).toHaveLength(2));
    expect(backend.calls.find((c) => c.path.endsWith('/w1/replies'))?.body).toEqual({ content: '补充：作业号 1234' });
    expect(screen.getAllByTestId('wo-message-text')[1].textContent).toBe('补充：作业号 1234');
    expect(input('wo-reply-text').value).toBe('');

    // An operator answers elsewhere: the socket event brings the answer without a reload.
    const o = backend.orders[0];
    o.replies.push(reply('r9', 'ops-wang', 'operator', '已为您调整队列'));
    o.state = 'PROCESSING';
    o.lastReplyBy = 'operator';
    act(() => applyLiveEvent(queryClient, { businessType: 'workorder.changed', data: o }));
    await waitFor(() => expect(screen.getAllByTestId('wo-message')).toHaveLength(3));
    expect(screen.getByTestId('wo-state').textContent).toBe('处理中');
  });

  it('lets an operator mark it resolved', async () => {
    backend.setRoles(['user', 'operator']);
    backend.orders.push(order('w1', { ownerId: 'u2', ownerName: 'bob', state: 'PROCESSING' }));
    renderAt('/workorder/detail/w1');
    fireEvent.click(await screen.findByTestId('wo-resolve'));
    expect(screen.getByText('确定将此工单标记为已解决吗？')).toBeTruthy();
    expect(screen.getByTestId('wo-close')).toBeTruthy();
  });
});
