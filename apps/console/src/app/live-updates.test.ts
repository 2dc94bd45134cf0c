import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyLiveEvent } from './live-updates';
import { queryKeys } from './query-keys';

describe('live events in the query cache', () => {
  it('adds data.count to the unread badge', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.unreadCount('u1'), 3);
    applyLiveEvent(client, { businessType: 'notice.unread.increment', data: { count: 2 } });
    expect(client.getQueryData(queryKeys.unreadCount('u1'))).toBe(5);
  });

  it('marks the message list, task lists and compute power stale on their events', () => {
    const client = new QueryClient();
    client.setQueryData([...queryKeys.messagesRoot, 'list', {}], { list: [] });
    client.setQueryData([...queryKeys.tasksRoot.slurm, 'list'], []);
    client.setQueryData([...queryKeys.tasksRoot.training, 'list'], []);
    client.setQueryData(queryKeys.compPowers('u1'), { total: '1.00' });

    applyLiveEvent(client, { businessType: 'notice.unread.increment', data: { count: 1 } });
    expect(client.getQueryState([...queryKeys.messagesRoot, 'list', {}])?.isInvalidated).toBe(true);

    applyLiveEvent(client, { businessType: 'task.state.changed', data: { taskId: 't', kind: 'slurm', state: 'RUNNING', reason: '' } });
    expect(client.getQueryState([...queryKeys.tasksRoot.slurm, 'list'])?.isInvalidated).toBe(true);
    expect(client.getQueryState([...queryKeys.tasksRoot.training, 'list'])?.isInvalidated).toBe(false);

    client.setQueryData(queryKeys.compPowers('u1'), { total: '1.00' });
    applyLiveEvent(client, { businessType: 'comp-power.changed', data: {} });
    expect(client.getQueryState(queryKeys.compPowers('u1'))?.isInvalidated).toBe(true);
  });

  it('a metering draw (comp-power.changed) refreshes open task details, so 已消耗 rises, and leaves the lists', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.training.detail('t1'), { consumed: '0.01' });
    client.setQueryData(queryKeys.slurmTask.detail('t2'), { consumed: '0.01' });
    client.setQueryData(queryKeys.training.list({}), { list: [] });
    applyLiveEvent(client, { businessType: 'comp-power.changed', data: {} });
    expect(client.getQueryState(queryKeys.training.detail('t1'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.slurmTask.detail('t2'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.training.list({}))?.isInvalidated).toBe(false);
  });

  it('comp-power.changed refreshes a team\'s 团队算力, usage and records (a team-paid draw), not its members or the list', () => {
    const client = new QueryClient();
    for (const key of [queryKeys.team.compute('tm1'), queryKeys.team.usage('tm1'), queryKeys.team.records('tm1'), queryKeys.team.detail('tm1'), queryKeys.team.list]) client.setQueryData(key, {});
    applyLiveEvent(client, { businessType: 'comp-power.changed', data: {} });
    for (const key of [queryKeys.team.compute('tm1'), queryKeys.team.usage('tm1'), queryKeys.team.records('tm1')]) expect(client.getQueryState(key)?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.team.detail('tm1'))?.isInvalidated).toBe(false);
    expect(client.getQueryState(queryKeys.team.list)?.isInvalidated).toBe(false);
  });

  it('a first fetch still in flight when its task changes is asked again, not joined', async () => {
    // The page opened just before the task started: the server answered the list's first read with QUEUED,
    // but the answer arrives after the event. Joining that fetch would keep QUEUED on screen.
    const client = new QueryClient();
    const answers: ((state: string) => void)[] = [];
    const key = queryKeys.training.list({});
    const observer = new QueryObserver(client, { queryKey: key, queryFn: () => new Promise<string>((resolve) => answers.push(resolve)) });
    const seen: (string | undefined)[] = [];
    const unsubscribe = observer.subscribe((r) => seen.push(r.data));
    expect(answers).toHaveLength(1);
    applyLiveEvent(client, { businessType: 'task.state.changed', data: { taskId: 't', kind: 'training', state: 'RUNNING', reason: '' } });
    expect(answers).toHaveLength(2);
    answers[0]('QUEUED');
    answers[1]('RUNNING');
    await expect.poll(() => client.getQueryData(key)).toBe('RUNNING');
    expect(seen).not.toContain('QUEUED');
    unsubscribe();
  });

  it('a resource sample re-reads the open 资源 pages at once and marks the rest of 资源 stale, nothing else', async () => {
    const client = new QueryClient();
    let reads = 0;
    const observer = new QueryObserver(client, { queryKey: queryKeys.resource.overview, queryFn: async () => ++reads });
    const unsubscribe = observer.subscribe(() => {});
    await expect.poll(() => client.getQueryData(queryKeys.resource.overview)).toBe(1);
    client.setQueryData(queryKeys.resource.utilization(24), { centers: [] });
    client.setQueryData(queryKeys.resource.vendors, []);
    client.setQueryData([...queryKeys.tasksRoot.training, 'list'], []);

    applyLiveEvent(client, { businessType: 'resource.sampled', data: { centerId: 'sz-a100', sampledAt: 1 } });
    // The overview on screen is read again without waiting for its timer.
    await expect.poll(() => client.getQueryData(queryKeys.resource.overview)).toBe(2);
    expect(client.getQueryState(queryKeys.resource.utilization(24))?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.resource.vendors)?.isInvalidated).toBe(true);
    expect(client.getQueryState([...queryKeys.tasksRoot.training, 'list'])?.isInvalidated).toBe(false);
    unsubscribe();
  });

  it('writes an image import as pushed; its end refreshes my images and the task form picker', () => {
    const client = new QueryClient();
    const imp = { id: 'i1', subCenterId: 'sz-a100', path: '/a.tar', repository: 'alice/app', tag: 'v1', format: 'oci-archive', state: 'running' as const, percent: 42, message: '正在推送到镜像仓库', digest: '', createTime: 1, updateTime: 2 };
    client.setQueryData(queryKeys.image.mine, []);
    client.setQueryData(queryKeys.images('a100-80g'), []);
    applyLiveEvent(client, { businessType: 'image.import.changed', data: imp });
    expect(client.getQueryData(queryKeys.image.import('i1'))).toEqual(imp);
    expect(client.getQueryState(queryKeys.image.mine)?.isInvalidated).toBe(false);
    applyLiveEvent(client, { businessType: 'image.import.changed', data: { ...imp, state: 'succeeded', percent: 100 } });
    expect(client.getQueryData(queryKeys.image.import('i1'))).toMatchObject({ state: 'succeeded', percent: 100 });
    expect(client.getQueryState(queryKeys.image.mine)?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.images('a100-80g'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.image.import('i1'))?.isInvalidated).toBe(false);
  });

  it('writes a sync job into the lists holding it; refetches them only when it is new or changed state', () => {
    const client = new QueryClient();
    const job = {
      id: 's1', kind: 'path' as const, label: '', sourceCenterId: 'sz', sourceCenterName: '深圳算力分中心', sourcePath: '/data', targetCenterId: 'gz', targetCenterName: '广州算力分中心',
      targetDir: '/', targetPath: '/data', state: 'RUNNING' as const, bytesDone: 10, bytesTotal: 100, filesDone: 1, filesTotal: 4, message: '',
      retries: 0, createTime: 1, updateTime: 2, finishTime: null,
    };
    const active = queryKeys.sync.list({ scope: 'active', pageNum: 1, pageSize: 5 });
    const all = queryKeys.sync.list({ scope: 'all', pageNum: 1, pageSize: 20 });
    const page = (list: (typeof job)[]) => ({ list, total: list.length, pageNum: 1, pageSize: 5 });
    client.setQueryData(active, page([job]));
    client.setQueryData(all, page([job]));
    client.setQueryData(queryKeys.sync.detail('s1'), job);
    client.setQueryData(queryKeys.storage.center('gz'), 'x');

    // Progress: written in place, nothing refetched.
    applyLiveEvent(client, { businessType: 'sync.changed', data: { ...job, bytesDone: 50, filesDone: 2 } });
    expect(client.getQueryData<{ list: (typeof job)[] }>(active)?.list[0]).toMatchObject({ bytesDone: 50, filesDone: 2 });
    expect(client.getQueryData<{ list: (typeof job)[] }>(all)?.list[0].bytesDone).toBe(50);
    expect(client.getQueryData<typeof job>(queryKeys.sync.detail('s1'))?.bytesDone).toBe(50);
    expect(client.getQueryState(active)?.isInvalidated).toBe(false);

    // Finished: written, the lists refetched (it leaves the active ones), and the copy is in gz's storage.
    applyLiveEvent(client, { businessType: 'sync.changed', data: { ...job, state: 'SUCCEEDED', bytesDone: 100, filesDone: 4 } });
    expect(client.getQueryData<{ list: (typeof job)[] }>(all)?.list[0].state).toBe('SUCCEEDED');
    expect(client.getQueryState(active)?.isInvalidated).toBe(true);
    expect(client.getQueryState(all)?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.storage.center('gz'))?.isInvalidated).toBe(true);

    // A job no list holds yet (made in another tab): the lists are refetched; no detail entry is made up.
    const fresh = new QueryClient();
    fresh.setQueryData(active, page([]));
    applyLiveEvent(fresh, { businessType: 'sync.changed', data: { ...job, id: 's2', state: 'QUEUED' } });
    expect(fresh.getQueryState(active)?.isInvalidated).toBe(true);
    expect(fresh.getQueryData(queryKeys.sync.detail('s2'))).toBeUndefined();
  });
  it('a work order change marks its lists and its detail stale, not other work orders or their screenshots', () => {
    const client = new QueryClient();
    const order = { id: 'w1', orderNo: 'GD202611260001', type: 'task' as const, title: '任务排队', state: 'PROCESSING' as const, ownerId: 'u1', ownerName: 'alice', link: null, replyCount: 1, lastReplyBy: 'operator' as const, createTime: 1, updateTime: 2 };
    client.setQueryData(queryKeys.workorder.list({ scope: 'mine' }), { list: [], total: 0 });
    client.setQueryData(queryKeys.workorder.detail('w1'), order);
    client.setQueryData(queryKeys.workorder.detail('w2'), { ...order, id: 'w2' });
    client.setQueryData(queryKeys.workorder.attachment('a1'), 'bytes');
    applyLiveEvent(client, { businessType: 'workorder.changed', data: order });
    expect(client.getQueryState(queryKeys.workorder.list({ scope: 'mine' }))?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.workorder.detail('w1'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(queryKeys.workorder.detail('w2'))?.isInvalidated).toBe(false);
    expect(client.getQueryState(queryKeys.workorder.attachment('a1'))?.isInvalidated).toBe(false);
  });
  it('a center status change re-reads the center lists, 购买算力\'s packages and 运营管理 › 分中心, not orders or records', () => {
    const client = new QueryClient();
    for (const key of [queryKeys.storage.centers, queryKeys.billing.centers, queryKeys.billing.products('sz', 'a100'), queryKeys.subCenterDetail('sz'), queryKeys.admin.centers])
      client.setQueryData(key, []);
    client.setQueryData(queryKeys.billing.orders({}), { list: [] });
    client.setQueryData(queryKeys.admin.users({}), { list: [] });
    applyLiveEvent(client, { businessType: 'center.changed', data: { id: 'sz', status: 'maintenance', notice: '扩容' } });
    for (const key of [queryKeys.storage.centers, queryKeys.billing.centers, queryKeys.billing.products('sz', 'a100'), queryKeys.subCenterDetail('sz'), queryKeys.admin.centers])
      expect(client.getQueryState(key)?.isInvalidated, JSON.stringify(key)).toBe(true);
    expect(client.getQueryState(queryKeys.billing.orders({}))?.isInvalidated).toBe(false);
    expect(client.getQueryState(queryKeys.admin.users({}))?.isInvalidated).toBe(false);
  });

  it('a team change marks every team query stale (list, details, invitations), not the invite dialog\'s user search', () => {
    const client = new QueryClient();
    for (const key of [queryKeys.team.list, queryKeys.team.detail('t1'), queryKeys.team.invitations, queryKeys.team.invitation('i1'), queryKeys.team.users('car')]) client.setQueryData(key, []);
    applyLiveEvent(client, { businessType: 'team.changed', data: { teamId: 't1' } });
    for (const key of [queryKeys.team.list, queryKeys.team.detail('t1'), queryKeys.team.invitations, queryKeys.team.invitation('i1')]) expect(client.getQueryState(key)?.isInvalidated, key.join('/')).toBe(true);
    expect(client.getQueryState(queryKeys.team.users('car'))?.isInvalidated).toBe(false);
  });
});
