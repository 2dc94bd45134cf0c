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

    applyLiveEvent(client, { businessType: 'task.state.changed', data: { taskId: 't', kind: 'slurm', state: 'RUNNING' } });
    expect(client.getQueryState([...queryKeys.tasksRoot.slurm, 'list'])?.isInvalidated).toBe(true);
    expect(client.getQueryState([...queryKeys.tasksRoot.training, 'list'])?.isInvalidated).toBe(false);

    client.setQueryData(queryKeys.compPowers('u1'), { total: '1.00' });
    applyLiveEvent(client, { businessType: 'comp-power.changed', data: {} });
    expect(client.getQueryState(queryKeys.compPowers('u1'))?.isInvalidated).toBe(true);
  });
});
