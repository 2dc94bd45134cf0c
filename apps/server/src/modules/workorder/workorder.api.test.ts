// Over 400 lines: the cases share one app per engine and its owner, other user and operator; attachments are the one nested group.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, MESSAGE_BASE, WORKORDER_ATTACHMENT_MAX_BYTES, WORKORDER_BASE, WORKORDER_OPEN_MAX, type WorkOrder, type WsEvent } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

interface User {
  id: string;
  username: string;
  token: string;
}

/** A multipart/form-data body with one file part. */
function multipart(file: { field?: string; name: string; type: string; bytes: Buffer }) {
  const boundary = `----suanli${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const PNG = await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 30, g: 120, b: 200 } } })
  .png()
  .toBuffer();

/** The calendar day of `now` in UTC+8, as orderNo spells it. */
const day = (now: number) => new Date(now + 8 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '');

describe.each(engines)('workorder api (%s)', (engine) => {
  let t: TestApp;
  let owner: User;
  let other: User;
  let op: User;
  let seq = 0;

  /** A real account (ownerName and authorName are usernames) with a session. */
  const user = async (tag: string): Promise<User> => {
    const username = `wo_${tag}_${seq++}_${randomBytes(2).toString('hex')}`;
    const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
    const { token } = await t.app.ctx.sessions.create(created!.id);
    return { id: created!.id, username, token };
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    [owner, other, op] = [await user('owner'), await user('other'), await user('op')];
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  const send = async (method: 'GET' | 'POST', path: string, token: string | null, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${WORKORDER_BASE}${path}`, headers: token ? { token } : {}, payload: payload as object }));
  const create = (u: User | null, over: object = {}) =>
    send('POST', '/workorders', u?.token ?? null, { type: 'task', title: '训练任务一直排队', description: '提交后一直处于排队中，\n请帮忙看看。', ...over });
  const detail = (u: User, id: string) => send('GET', `/workorders/${id}`, u.token);
  const reply = (u: User, id: string, content: string, attachmentIds?: string[]) => send('POST', `/workorders/${id}/replies`, u.token, { content, attachmentIds });
  const resolve = (u: User, id: string) => send('POST', `/workorders/${id}/resolve`, u.token);
  const close = (u: User, id: string) => send('POST', `/workorders/${id}/close`, u.token);
  const page = (u: User, q: object = {}) => send('POST', '/workorders/action/page', u.token, { pageNum: 1, pageSize: 100, ...q });
  const messages = async (u: User) =>
    body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: u.token }, payload: { pageNum: 1, pageSize: 100, type: 'workorder' } })).data.list;
  const upload = async (u: User | null, file: Parameters<typeof multipart>[0]) => {
    const { payload, headers } = multipart(file);
    return body(await t.app.inject({ method: 'POST', url: `${WORKORDER_BASE}/attachments`, payload, headers: { ...headers, ...(u ? { token: u.token } : {}) } }));
  };
  const fetchAttachment = (u: User, id: string) => t.app.inject({ method: 'GET', url: `${WORKORDER_BASE}/attachments/${id}`, headers: { token: u.token } });

  let taskSeq = 0;
  const task = async (ownerId: string, name: string) => {
    const id = `wo-task-${taskSeq++}-${randomBytes(3).toString('hex')}`;
    await t.app.tasks.repository.insert({
      id,
      owner_id: ownerId,
      name,
      kind: 'slurm',
      type: 'batch',
      sub_center_id: 'sz-a100',
      placement_reason: '',
      account: 'x',
      card_type_id: 'a100-80g',
      card_num: 1,
      node_num: 1,
      image_id: 'i',
      command: 'c',
      work_dir: '/',
      env: '[]',
      max_duration_min: 600,
      template_id: null,
      params: null,
      mounts: '[]',
      state: 'SUCCEEDED',
      reason: '',
      estimated_start: null,
      job_id: 'j',
      exit_code: 0,
      log_path: '/x.log',
      submit_attempts: 1,
      create_time: 1,
      update_time: 1,
      expiry_warned: 0,
      waiting_data: 0,
    });
    return id;
  };

  /** workorder.changed events per user while `run` runs. */
  const changes = async (run: () => Promise<unknown>) => {
    const seen: [string, WorkOrder][] = [];
    const off = t.app.ctx.bus.subscribe((uid: string, e: WsEvent) => {
      if (e.businessType === 'workorder.changed') seen.push([uid, e.data]);
    });
    try {
      await run();
    } finally {
      off();
    }
    return seen;
  };

  it('creates a PENDING work order with its orderNo, link to the owner\'s task and description; detail and list show it', async () => {
    const taskId = await task(owner.id, '分子动力学-01');
    let res: any;
    const events = await changes(async () => {
      res = await create(owner, { taskId, title: '  任务失败求助  ' });
    });
    expect(res.message).toEqual({ code: 0, message: '操作成功' });
    const wo = res.data;
    expect(wo).toMatchObject({
      type: 'task',
      title: '任务失败求助',
      state: 'PENDING',
      ownerId: owner.id,
      ownerName: owner.username,
      link: { type: 'task', id: taskId, name: '分子动力学-01' },
      replyCount: 0,
      lastReplyBy: null,
      createTime: t.clock.now,
      updateTime: t.clock.now,
      description: '提交后一直处于排队中，\n请帮忙看看。',
      attachments: [],
      replies: [],
    });
    expect(wo.orderNo).toMatch(new RegExp(`^GD${day(t.clock.now)}\\d{4}$`));
    // The owner's consoles and every operator's (全部工单 updates at once), the same work order.
    expect(events.map(([u]) => u)).toEqual([owner.id, op.id]);
    expect(events[0][1]).toMatchObject({ id: wo.id, state: 'PENDING', orderNo: wo.orderNo });
    expect(events[0][1]).not.toHaveProperty('description');
    expect(events[1][1]).toEqual(events[0][1]);

    expect((await detail(owner, wo.id)).data).toEqual(wo);
    const list = (await page(owner)).data;
    expect(list.list.find((x: any) => x.id === wo.id)).toMatchObject({ orderNo: wo.orderNo, link: { name: '分子动力学-01' }, ownerName: owner.username });
    expect(list.list[0]).not.toHaveProperty('replies');

    // The task's name is read when the work order is read: a deleted task leaves the id with an empty name.
    await t.app.tasks.repository.remove(owner.id, taskId);
    expect((await detail(owner, wo.id)).data.link).toEqual({ type: 'task', id: taskId, name: '' });
  });

  it('numbers concurrent work orders of the day without duplicates', async () => {
    const u = await user('burst');
    const all = await Promise.all(Array.from({ length: 6 }, (_, i) => create(u, { title: `并发${i}` })));
    expect(all.map((r) => r.message.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const nos = all.map((r) => r.data.orderNo as string);
    expect(new Set(nos).size).toBe(6);
    for (const no of nos) expect(no).toMatch(new RegExp(`^GD${day(t.clock.now)}\\d{4}$`));
  });

  it('follows the ADR\'s states: operator reply takes it, resolve, owner reply reopens, close ends it', async () => {
    const wo = (await create(owner, { type: 'billing', title: '扣费异常' })).data;
    t.clock.advance(1000);

    // The owner adding to a PENDING one leaves it PENDING.
    let r = await reply(owner, wo.id, '补充：昨天开始的');
    expect(r.data).toMatchObject({ state: 'PENDING', replyCount: 1, lastReplyBy: 'user' });
    t.clock.advance(1000);

    const before = (await messages(owner)).length;
    const events = await changes(async () => {
      r = await reply(op, wo.id, '您好，我们正在核查。');
    });
    expect(r.message.code).toBe(0);
    expect(r.data).toMatchObject({ state: 'PROCESSING', replyCount: 2, lastReplyBy: 'operator', updateTime: t.clock.now });
    expect(r.data.replies.map((x: any) => [x.authorRole, x.authorName, x.content])).toEqual([
      ['user', owner.username, '补充：昨天开始的'],
      ['operator', op.username, '您好，我们正在核查。'],
    ]);
    expect(events.map(([u, w]) => [u, w.state, w.lastReplyBy])).toEqual([
      [owner.id, 'PROCESSING', 'operator'],
      [op.id, 'PROCESSING', 'operator'],
    ]);
    const told = await messages(owner);
    expect(told.length).toBe(before + 1);
    expect(told[0]).toMatchObject({ type: 'workorder', title: '工单有新的回复', businessType: 'workorder', businessId: wo.id, viewed: false });
    expect(told[0].content).toContain('扣费异常');

    // A second operator reply keeps PROCESSING; the owner's reply to a PROCESSING one too.
    expect((await reply(op, wo.id, '请提供订单号')).data.state).toBe('PROCESSING');
    expect((await reply(owner, wo.id, 'DD001')).data.state).toBe('PROCESSING');

    r = await resolve(op, wo.id);
    expect(r.data).toMatchObject({ state: 'RESOLVED' });
    expect((await messages(owner))[0]).toMatchObject({ title: '工单已解决', businessId: wo.id });
    expect(await resolve(op, wo.id)).toEqual({ message: { code: 2702, message: '工单当前状态不允许此操作' }, data: null });

    // The owner says it is not solved: back to PROCESSING.
    r = await reply(owner, wo.id, '还是不对');
    expect(r.data).toMatchObject({ state: 'PROCESSING', replyCount: 5, lastReplyBy: 'user' });

    const ownerMessages = (await messages(owner)).length;
    const closing = await changes(async () => {
      r = await close(owner, wo.id);
    });
    expect(r.data).toMatchObject({ state: 'CLOSED' });
    // An operator's open detail follows the owner's close live (issue 22 item 9).
    expect(closing.map(([u, w]) => [u, w.state]).sort()).toEqual([[owner.id, 'CLOSED'], [op.id, 'CLOSED']].sort());
    // The owner closing their own work order is not told about it.
    expect((await messages(owner)).length).toBe(ownerMessages);
    for (const who of [owner, op]) expect(await reply(who, wo.id, '再问一句')).toEqual({ message: { code: 2701, message: '工单已关闭，无法继续回复' }, data: null });
    expect((await close(owner, wo.id)).message.code).toBe(2702);
    expect((await close(op, wo.id)).message.code).toBe(2702);
    expect((await resolve(op, wo.id)).message.code).toBe(2702);
    expect((await detail(owner, wo.id)).data).toMatchObject({ state: 'CLOSED', replyCount: 5 });
  });

  it('an operator sees everyone\'s work orders, may resolve and close them, and the owner is told', async () => {
    const u = await user('ops');
    const a = (await create(u, { title: '存储空间不足', type: 'storage' })).data;
    t.clock.advance(1000);
    const b = (await create(u, { title: '账号被锁定', type: 'account' })).data;
    const all = (await page(op, { scope: 'all' })).data;
    expect(all.list.filter((x: any) => x.ownerId === u.id).map((x: any) => [x.id, x.ownerName])).toEqual([
      [b.id, u.username],
      [a.id, u.username],
    ]);
    // The operator's own list (mine) does not hold them.
    expect((await page(op)).data.list.some((x: any) => x.ownerId === u.id)).toBe(false);
    expect((await detail(op, a.id)).data.id).toBe(a.id);
    // Resolving a PENDING one directly is allowed.
    expect((await resolve(op, a.id)).data.state).toBe('RESOLVED');
    expect((await close(op, b.id)).data.state).toBe('CLOSED');
    expect((await messages(u)).map((m: any) => [m.title, m.businessId])).toEqual([
      ['工单已关闭', b.id],
      ['工单已解决', a.id],
    ]);
  });

  it('tells every operator (message + unread push) of a work order filed or answered by its owner; not of operators\' own answers', async () => {
    const u = await user('notice');
    const op2 = await user('op2');
    await t.app.ctx.access.grant(op2.id, 'operator');
    const pushed: [string, WsEvent][] = [];
    const off = t.app.ctx.bus.subscribe((uid: string, e: WsEvent) => {
      if (uid !== u.id) pushed.push([uid, e]);
    });
    try {
      const before = await Promise.all([op, op2].map((o) => messages(o).then((l) => l.length)));
      const wo = (await create(u, { title: 'GPU 卡死', type: 'task' })).data;
      for (const o of [op, op2]) {
        const [m] = await messages(o);
        expect(m).toMatchObject({ type: 'workorder', title: '新工单待处理', businessType: 'workorder', businessId: wo.id, viewed: false });
        expect(m.content).toBe(`用户 ${u.username} 提交了工单「GPU 卡死」（${wo.orderNo}），请及时处理。`);
        // The bell goes up and 全部工单 re-reads, without waiting for a timer.
        expect(pushed.filter(([uid]) => uid === o.id).map(([, e]) => e.businessType)).toEqual(['workorder.changed', 'notice.unread.increment']);
      }
      pushed.length = 0;
      // An operator answering tells the owner, not the other operators.
      await reply(op, wo.id, '正在排查');
      expect(pushed.filter(([, e]) => e.businessType === 'notice.unread.increment')).toEqual([]);
      expect(pushed.filter(([, e]) => e.businessType === 'workorder.changed').map(([uid]) => uid).sort()).toEqual([op.id, op2.id].sort());
      // The owner answering tells every operator again.
      await reply(u, wo.id, '重启后仍然卡死');
      for (const o of [op, op2]) {
        const [m] = await messages(o);
        expect([m.title, m.content]).toEqual(['工单有新的用户回复', `用户 ${u.username} 回复了工单「GPU 卡死」（${wo.orderNo}），请及时处理。`]);
      }
      expect(await Promise.all([op, op2].map((o) => messages(o).then((l) => l.length)))).toEqual(before.map((n) => n + 2));
      // Nobody else hears of it.
      expect((await messages(other)).some((m: any) => m.businessId === wo.id)).toBe(false);
    } finally {
      off();
    }
  });

  it('audits an operator\'s resolve and close of someone\'s work order (one entry each, in the move\'s transaction); not the owner\'s close', async () => {
    const u = await user('audit');
    const entries = async (id: string) =>
      body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/audit-logs/action/page`, headers: { token: op.token }, payload: { target: id } })).data.list.reverse();
    const a = (await create(u, { title: '要解决的' })).data;
    const b = (await create(u, { title: '要关闭的' })).data;
    const c = (await create(u, { title: '自己关闭' })).data;
    expect((await resolve(op, a.id)).data.state).toBe('RESOLVED');
    expect((await close(op, b.id)).data.state).toBe('CLOSED');
    expect((await close(u, c.id)).data.state).toBe('CLOSED');
    expect((await entries(a.id)).map((e: any) => [e.action, e.actorName, e.targetType, e.targetName, e.before, e.after])).toEqual([
      ['workorder.resolve', op.username, 'workorder', `${a.orderNo}「要解决的」`, '{"state":"PENDING"}', '{"state":"RESOLVED"}'],
    ]);
    expect((await entries(b.id)).map((e: any) => [e.action, e.before, e.after])).toEqual([['workorder.close', '{"state":"PENDING"}', '{"state":"CLOSED"}']]);
    expect(await entries(c.id)).toEqual([]);
    // Refused moves write nothing.
    expect((await resolve(op, b.id)).message.code).toBe(2702);
    expect((await close(op, b.id)).message.code).toBe(2702);
    expect(await entries(b.id)).toHaveLength(1);
    // The entry and the move commit together: when the entry cannot be written the work order stays open.
    const d = (await create(u, { title: '写不进日志' })).data;
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      await t.app.inject({ method: 'POST', url: `${WORKORDER_BASE}/workorders/${d.id}/resolve`, headers: { token: op.token } });
    } finally {
      trail.record = record;
    }
    expect((await detail(u, d.id)).data.state).toBe('PENDING');
    expect(await entries(d.id)).toEqual([]);
  });

  it('lists newest change first, filters by state and by keyword in the title or orderNo', async () => {
    const u = await user('list');
    const first = (await create(u, { title: 'GPU 驱动报错' })).data;
    t.clock.advance(1000);
    const second = (await create(u, { title: '100%_进度卡住' })).data;
    t.clock.advance(1000);
    // A reply moves the first to the top.
    await reply(op, first.id, '处理中');
    const list = (await page(u)).data;
    expect(list).toMatchObject({ total: 2, pageNum: 1, pageSize: 100 });
    expect(list.list.map((x: any) => x.id)).toEqual([first.id, second.id]);
    expect((await page(u, { pageSize: 1, pageNum: 2 })).data).toMatchObject({ total: 2, list: [{ id: second.id }] });

    expect((await page(u, { state: 'PENDING' })).data.list.map((x: any) => x.id)).toEqual([second.id]);
    expect((await page(u, { state: 'PROCESSING' })).data.list.map((x: any) => x.id)).toEqual([first.id]);
    expect((await page(u, { state: 'CLOSED' })).data).toMatchObject({ total: 0, list: [] });
    expect((await page(u, { keyword: 'gpu' })).data.list.map((x: any) => x.id)).toEqual([first.id]);
    expect((await page(u, { keyword: second.orderNo.toLowerCase() })).data.list.map((x: any) => x.id)).toEqual([second.id]);
    // LIKE's wildcards are literal.
    expect((await page(u, { keyword: '%_' })).data.list.map((x: any) => x.id)).toEqual([second.id]);
    expect((await page(u, { keyword: '_' })).data.list.map((x: any) => x.id)).toEqual([second.id]);
  });

  it('another user gets 1205 for someone else\'s work order, never sees it listed, and is refused scope all (1020)', async () => {
    const wo = (await create(owner, { title: '只属于我' })).data;
    const gone = { message: { code: 1205, message: '工单不存在' }, data: null };
    expect(await detail(other, wo.id)).toEqual(gone);
    expect(await reply(other, wo.id, '插一句')).toEqual(gone);
    expect(await close(other, wo.id)).toEqual(gone);
    expect(await resolve(other, wo.id)).toEqual(gone);
    expect(await detail(other, 'no-such-id')).toEqual(gone);
    expect((await page(other)).data.list.some((x: any) => x.id === wo.id)).toBe(false);
    expect(await page(other, { scope: 'all' })).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
    // The owner who is not an operator cannot resolve their own.
    expect(await resolve(owner, wo.id)).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
    expect((await detail(owner, wo.id)).data).toMatchObject({ state: 'PENDING', replyCount: 0 });
  });

  it('answers 1005 naming the field for invalid input', async () => {
    const wo = (await create(owner, { title: '校验' })).data;
    const foreignTask = await task(other.id, '别人的任务');
    const cases: [string, () => Promise<any>][] = [
      ['title', () => create(owner, { title: '' })],
      ['title', () => create(owner, { title: '   ' })],
      ['title', () => create(owner, { title: 'x'.repeat(65) })],
      ['title', () => create(owner, { title: '换行\n标题' })],
      ['title', () => send('POST', '/workorders', owner.token, { type: 'task', description: 'd' })],
      ['type', () => create(owner, { type: 'spam' })],
      ['description', () => create(owner, { description: '' })],
      ['description', () => create(owner, { description: ' \n ' })],
      ['description', () => create(owner, { description: 'x'.repeat(4001) })],
      ['taskId', () => create(owner, { taskId: foreignTask })],
      ['taskId', () => create(owner, { taskId: 'no-such-task' })],
      ['attachmentIds', () => create(owner, { attachmentIds: ['no-such-attachment'] })],
      ['attachmentIds', () => create(owner, { attachmentIds: ['a', 'b', 'c', 'd', 'e', 'f'] })],
      ['content', () => reply(owner, wo.id, '')],
      ['content', () => reply(owner, wo.id, '\u0007')],
      ['attachmentIds', () => reply(owner, wo.id, '有附件', ['no-such-attachment'])],
      ['state', () => page(owner, { state: 'DONE' })],
      ['scope', () => page(owner, { scope: 'everyone' })],
      ['pageSize', () => page(owner, { pageSize: 1000 })],
    ];
    for (const [field, run] of cases) {
      const { message } = await run();
      expect(message.code, `${field}: ${message.message}`).toBe(1005);
      expect(message.message).toContain(field);
    }
    // Nothing was created or changed by the refused calls.
    expect((await detail(owner, wo.id)).data.replyCount).toBe(0);
    expect((await page(owner, { keyword: '校验' })).data.total).toBe(1);
  });

  it('refuses every call without a valid session (10133)', async () => {
    const wo = (await create(owner, { title: '会话' })).data;
    for (const token of [null, 'forged-token']) {
      const results = [
        await send('POST', '/workorders', token, { type: 'task', title: 't', description: 'd' }),
        await send('POST', '/workorders/action/page', token, {}),
        await send('GET', `/workorders/${wo.id}`, token),
        await send('POST', `/workorders/${wo.id}/replies`, token, { content: 'x' }),
        await send('POST', `/workorders/${wo.id}/resolve`, token),
        await send('POST', `/workorders/${wo.id}/close`, token),
        await upload(token ? { ...owner, token } : null, { name: 'a.png', type: 'image/png', bytes: PNG }),
        await send('GET', '/attachments/x', token),
      ];
      expect(results.map((r) => r.message.code)).toEqual(results.map(() => 10133));
    }
    expect((await detail(owner, wo.id)).data).toMatchObject({ state: 'PENDING', replyCount: 0 });
  });

  it(`allows at most ${WORKORDER_OPEN_MAX} work orders that are not closed (2703); closing one frees a place`, async () => {
    const u = await user('limit');
    const made = [];
    for (let i = 0; i < WORKORDER_OPEN_MAX - 1; i++) made.push((await create(u, { title: `第${i}个` })).data);
    // The last places, raced for by three requests: exactly one gets it.
    const raced = await Promise.all([create(u), create(u), create(u)]);
    expect(raced.map((r) => r.message.code).sort()).toEqual([0, 2703, 2703]);
    expect(raced.find((r) => r.message.code === 2703)!.message.message).toBe('未关闭的工单已达上限，请先关闭已解决的工单');
    expect((await page(u)).data.total).toBe(WORKORDER_OPEN_MAX);
    // Resolved still counts as open.
    await resolve(op, made[0].id);
    expect((await create(u)).message.code).toBe(2703);
    // Two concurrent closes of the same one free one place, not two.
    const closes = await Promise.all([close(u, made[0].id), close(op, made[0].id)]);
    expect(closes.map((r) => r.message.code).sort()).toEqual([0, 2702]);
    expect((await create(u)).message.code).toBe(0);
    expect((await create(u)).message.code).toBe(2703);
  });

  it('concurrent resolves and a reply racing a close: one wins, the other gets the state error', async () => {
    const wo = (await create(owner, { title: '并发' })).data;
    const resolves = await Promise.all([resolve(op, wo.id), resolve(op, wo.id)]);
    expect(resolves.map((r) => r.message.code).sort()).toEqual([0, 2702]);
    const [replied, closed] = await Promise.all([reply(owner, wo.id, '最后一句'), close(op, wo.id)]);
    expect(closed.message.code).toBe(0);
    const final = (await detail(owner, wo.id)).data;
    expect(final.state).toBe('CLOSED');
    // Either the reply landed before the close (and reopened it first) or it was refused as closed.
    if (replied.message.code === 0) expect(final.replies.map((r: any) => r.content)).toEqual(['最后一句']);
    else {
      expect(replied.message.code).toBe(2701);
      expect(final.replies).toEqual([]);
    }
  });

  it('documents every route in the OpenAPI document with its tag and a Chinese summary', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/gateway/docs/json' })).body);
    const ops = Object.entries(doc.paths as Record<string, Record<string, { tags: string[]; summary: string }>>)
      .filter(([path]) => path.startsWith(WORKORDER_BASE))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path.slice(WORKORDER_BASE.length)}`, ...op })));
    expect(ops.map((o) => o.route).sort()).toEqual(
      [
        'GET /attachments/{id}',
        'GET /workorders/{id}',
        'POST /attachments',
        'POST /workorders',
        'POST /workorders/action/page',
        'POST /workorders/{id}/close',
        'POST /workorders/{id}/replies',
        'POST /workorders/{id}/resolve',
      ].sort(),
    );
    for (const o of ops) {
      expect(o.tags, o.route).toEqual(['workorder']);
      expect(o.summary, o.route).toMatch(/\p{Script=Han}/u);
    }
  });

  describe('attachments', () => {
    it('accepts a real PNG, links it to the description and a reply, and serves it byte for byte to the owner and operators', async () => {
      const up = await upload(owner, { name: '报错截图.png', type: 'image/png', bytes: PNG });
      expect(up.message.code).toBe(0);
      expect(up.data).toEqual({ id: expect.any(String), name: '报错截图.png', size: PNG.length, contentType: 'image/png' });
      // Before it is sent, the uploader may read it back (the console previews it).
      expect((await fetchAttachment(owner, up.data.id)).rawPayload).toEqual(PNG);
      expect((await fetchAttachment(other, up.data.id)).statusCode).toBe(404);

      const wo = (await create(owner, { title: '带截图', attachmentIds: [up.data.id, up.data.id] })).data;
      expect(wo.attachments).toEqual([up.data]);
      for (const who of [owner, op]) {
        const res = await fetchAttachment(who, up.data.id);
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('image/png');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(String(res.headers['content-disposition'])).toMatch(/^inline/);
        expect(res.rawPayload.equals(PNG)).toBe(true);
      }
      const denied = await fetchAttachment(other, up.data.id);
      expect(denied.statusCode).toBe(404);
      expect(body(denied).message).toEqual({ code: 1205, message: '附件不存在' });

      // An operator's reply with its own screenshot, which the owner can read.
      const opUp = (await upload(op, { name: 'answer.png', type: 'image/png', bytes: PNG })).data;
      const r = (await reply(op, wo.id, '请看图', [opUp.id])).data;
      expect(r.replies[0].attachments).toEqual([opUp]);
      expect(r.attachments).toEqual([up.data]);
      expect((await fetchAttachment(owner, opUp.id)).rawPayload.equals(PNG)).toBe(true);
      expect((await fetchAttachment(other, opUp.id)).statusCode).toBe(404);

      // Used once, it cannot be used again; another user's upload cannot be used at all.
      const again = await reply(owner, wo.id, '再用一次', [up.data.id]);
      expect(again.message.code).toBe(1005);
      expect(again.message.message).toContain('attachmentIds');
      const foreign = (await upload(other, { name: 'x.png', type: 'image/png', bytes: PNG })).data;
      for (const res of [await reply(owner, wo.id, '别人的图', [foreign.id]), await create(owner, { attachmentIds: [foreign.id] })]) {
        expect(res.message.code).toBe(1005);
        expect(res.message.message).toContain('attachmentIds');
      }
      // The refused reply left neither a reply nor a claimed attachment behind.
      expect((await detail(owner, wo.id)).data.replyCount).toBe(1);
      expect((await fetchAttachment(other, foreign.id)).rawPayload.equals(PNG)).toBe(true);
    });

    it('one upload raced for by two messages goes to one of them; the other is refused whole (no reply, no work order)', async () => {
      const u = await user('race');
      const wo = (await create(u, { title: '抢附件' })).data;
      const up = (await upload(u, { name: 'a.png', type: 'image/png', bytes: PNG })).data;
      const [a, b, c] = await Promise.all([reply(u, wo.id, '一', [up.id]), reply(u, wo.id, '二', [up.id]), create(u, { title: '也要它', attachmentIds: [up.id] })]);
      expect([a, b, c].map((r) => r.message.code).sort()).toEqual([0, 1005, 1005]);
      const after = (await detail(u, wo.id)).data;
      const created = c.message.code === 0;
      expect(after.replyCount).toBe(created ? 0 : 1);
      expect(after.replies.flatMap((r: any) => r.attachments)).toEqual(created ? [] : [up]);
      expect((await page(u)).data.total).toBe(created ? 2 : 1);
    });

    it('refuses what is not a PNG, JPEG or WebP by its bytes, and anything over 5 MB (2704)', async () => {
      const text = await upload(owner, { name: 'evil.png', type: 'image/png', bytes: Buffer.from('<script>alert(1)</script>') });
      expect(text).toEqual({ message: { code: 2704, message: '附件仅支持 PNG、JPEG 或 WebP 图片，且不超过 5 MB' }, data: null });
      const big = Buffer.concat([PNG, Buffer.alloc(WORKORDER_ATTACHMENT_MAX_BYTES + 1 - PNG.length)]);
      expect(await upload(owner, { name: 'big.png', type: 'image/png', bytes: big })).toEqual({
        message: { code: 2704, message: '附件仅支持 PNG、JPEG 或 WebP 图片，且不超过 5 MB' },
        data: null,
      });
      // Exactly at the limit is fine (over the app-wide 2 MB avatar limit).
      const max = Buffer.concat([PNG, Buffer.alloc(WORKORDER_ATTACHMENT_MAX_BYTES - PNG.length)]);
      const ok = await upload(owner, { name: 'max.png', type: 'image/png', bytes: max });
      expect(ok.data).toMatchObject({ size: WORKORDER_ATTACHMENT_MAX_BYTES, contentType: 'image/png' });
      expect((await fetchAttachment(owner, ok.data.id)).rawPayload.equals(max)).toBe(true);
      const wrongField = await upload(owner, { field: 'image', name: 'a.png', type: 'image/png', bytes: PNG });
      expect(wrongField.message.code).toBe(1005);
      expect(wrongField.message.message).toContain('file');
    });

    it('unused uploads expire after 24 h: they can no longer be sent and are removed', async () => {
      const u = await user('expire');
      const stale = (await upload(u, { name: 'old.png', type: 'image/png', bytes: PNG })).data;
      t.clock.advance(25 * 3600_000);
      try {
        const fresh = await t.app.ctx.sessions.create(u.id);
        const me = { ...u, token: fresh.token };
        const res = await create(me, { attachmentIds: [stale.id] });
        expect(res.message.code).toBe(1005);
        expect(res.message.message).toContain('attachmentIds');
        // The next upload (anyone's) sweeps it away.
        expect((await upload(me, { name: 'new.png', type: 'image/png', bytes: PNG })).message.code).toBe(0);
        expect((await fetchAttachment(me, stale.id)).statusCode).toBe(404);
      } finally {
        t.clock.advance(-25 * 3600_000);
      }
    });
  });
});
