import { QueryClient } from '@tanstack/react-query';
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
});
