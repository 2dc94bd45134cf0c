import { MessageApi, type Page, type SyncJob, type WsEvent } from '@suanli/contracts';
import type { InvalidateQueryFilters, QueryClient } from '@tanstack/react-query';
import { queryKeys } from './query-keys';
import { call } from './request';
import { createSocketClient, type SocketClient } from './socket';
import { getToken, useUserStore } from './stores/user-store';

/**
 * Marks what changed on the server stale and reads it again. TanStack Query restarts a fetch in flight only
 * when the query already has data; a first fetch still in flight is joined instead, and its answer — which
 * the server may have given just before the change — would stand, the change lost until the next event (a
 * page opened while its task started or finished kept showing the old state). Such fetches are cancelled
 * first, so the refetch asks again.
 */
function refresh(client: QueryClient, filters: InvalidateQueryFilters): void {
  const inFirstFetch = (q: Parameters<NonNullable<InvalidateQueryFilters['predicate']>>[0]) =>
    q.state.data === undefined && q.state.fetchStatus === 'fetching' && (filters.predicate?.(q) ?? true);
  void client.cancelQueries({ ...filters, predicate: inFirstFetch });
  void client.invalidateQueries(filters);
}

/** Socket events land in the query cache: the one place the UI reads server state from. */
export function applyLiveEvent(client: QueryClient, event: WsEvent): void {
  switch (event.businessType) {
    case 'notice.unread.increment': {
      const count = Number(event.data?.count) || 0;
      // A badge not read yet (its first answer may predate the message) is read instead of counted up.
      client.setQueriesData<number>({ queryKey: queryKeys.unreadCountRoot }, (n) => (n === undefined ? n : n + count));
      refresh(client, { queryKey: queryKeys.unreadCountRoot, predicate: (q) => q.state.data === undefined });
      // The message list shows the new rows on its next render.
      refresh(client, { queryKey: queryKeys.messagesRoot, predicate: (q) => q.queryKey[1] !== 'unread-count' });
      break;
    }
    case 'task.state.changed':
      refresh(client, { queryKey: queryKeys.tasksRoot[event.data.kind] ?? queryKeys.tasksRoot.training });
      refresh(client, { queryKey: queryKeys.compPowersRoot });
      // 资源 shows the caller's running tasks and the cards they hold.
      refresh(client, { queryKey: queryKeys.resource.root });
      break;
    case 'comp-power.changed':
      refresh(client, { queryKey: queryKeys.compPowersRoot });
      // A confirmed or paid order changes its status and adds a charge record.
      refresh(client, { queryKey: queryKeys.billing.root });
      // A metering draw: an open task detail's 已消耗 rises with it.
      for (const root of Object.values(queryKeys.tasksRoot)) refresh(client, { queryKey: root, predicate: (q) => q.queryKey[1] === 'detail' });
      // A team's balance moved (a team-paid draw, a credit; every member is told, ADR 0017): 团队算力, members'
      // usage and records on 团队详情, and 预计最多消耗 with 付费方 团队 (same key).
      refresh(client, { queryKey: queryKeys.team.root, predicate: (q) => ['compute', 'usage', 'records'].includes(q.queryKey[1] as string) });
      break;
    case 'asset.version.changed':
      // Progress and the end of a copy: the lists and details of that kind (files and README of a ready
      // version never change, so their keys are left alone).
      refresh(client, { queryKey: queryKeys.asset.root(event.data.kind), predicate: (q) => q.queryKey[2] === 'list' || q.queryKey[2] === 'detail' });
      break;
    case 'image.import.changed':
      // The event is the whole import: written as is (progress without a request); once it is over, the
      // caller's images and the task form's picker show the result.
      client.setQueryData(queryKeys.image.import(event.data.id), event.data);
      if (event.data.state !== 'running') {
        refresh(client, { queryKey: queryKeys.image.root, predicate: (q) => q.queryKey[1] !== 'import' });
        refresh(client, { queryKey: queryKeys.imagesRoot });
      }
      break;
    case 'sync.changed':
      applySyncJob(client, event.data);
      break;
    case 'workorder.changed':
      // The whole work order: its lists and its detail (the conversation) are read again.
      refresh(client, { queryKey: queryKeys.workorder.listRoot });
      if (event.data?.id) refresh(client, { queryKey: queryKeys.workorder.detail(event.data.id), exact: true });
      break;
    case 'center.changed':
      // A center went into 维护 / 下线 or back to 正常: every center list and its status, 购买算力's packages,
      // and 运营管理 › 分中心 read again.
      refresh(client, { queryKey: queryKeys.storage.centers });
      refresh(client, { queryKey: queryKeys.subCenterDetailRoot });
      refresh(client, { queryKey: queryKeys.billing.root, predicate: (q) => q.queryKey[1] === 'sub-centers' || q.queryKey[1] === 'products' });
      refresh(client, { queryKey: queryKeys.admin.centers });
      break;
    case 'team.changed':
      // Members, roles or invitations changed: the team pages and the pending invitations are read again.
      refresh(client, { queryKey: queryKeys.team.root, predicate: (q) => q.queryKey[1] !== 'users' });
      break;
    case 'resource.sampled':
      // A center's inventory was just stored: 资源概览 and 资源大屏 re-read now (only the pages open refetch).
      refresh(client, { queryKey: queryKeys.resource.root });
      break;
  }
}

/**
 * A cross-center sync moved on: the event is the whole job. It replaces the job wherever a list or detail
 * holds it (progress twice a second costs no request); the lists are refetched only when the job is new to
 * the cache or changed state (it joins, moves within or leaves the active ones). A finished copy is in the
 * target center's storage.
 */
function applySyncJob(client: QueryClient, job: SyncJob): void {
  if (!job?.id) return;
  // The state the cache had for it (written from the callbacks below).
  const cached: { state?: SyncJob['state'] } = {};
  client.setQueriesData<Page<SyncJob>>({ queryKey: queryKeys.sync.listRoot }, (page) => {
    const i = page?.list?.findIndex((j) => j.id === job.id) ?? -1;
    if (!page || i < 0) return page;
    cached.state ??= page.list[i].state;
    return { ...page, list: page.list.map((j) => (j.id === job.id ? job : j)) };
  });
  client.setQueriesData<SyncJob>({ queryKey: queryKeys.sync.detail(job.id), exact: true }, (prev) => {
    if (prev) cached.state ??= prev.state;
    return prev && job;
  });
  if (cached.state !== job.state) {
    refresh(client, { queryKey: queryKeys.sync.listRoot });
    if (job.state === 'SUCCEEDED') refresh(client, { queryKey: queryKeys.storage.center(job.targetCenterId) });
  }
}

/** Opens the live-updates socket for the app's lifetime; returns the stop function. */
export function startLiveUpdates(client: QueryClient): { stop(): void } {
  const socket: SocketClient = createSocketClient({
    getToken,
    onEvent: (event) => applyLiveEvent(client, event),
    // Whatever happened while the socket was down (or before it first connected) was not pushed.
    onOpen: () => {
      for (const queryKey of [queryKeys.messagesRoot, queryKeys.compPowersRoot, queryKeys.tasksRoot.training, queryKeys.tasksRoot.slurm, queryKeys.sync.root, queryKeys.workorder.listRoot, queryKeys.billing.root]) refresh(client, { queryKey });
    },
    // The server refused the token: ask the gateway, whose answer (10133/10157/10307) the pipeline turns
    // into the usual redirect to login. Any signed-in call would do; the unread count is the cheapest the
    // console has a descriptor for (after the user routes' descriptors merge, `UserApi.me` says it better).
    // A network failure here stays quiet.
    onTokenRejected: () => {
      call(MessageApi.unviewCount, { body: {} }, { silent: true }).catch(() => {});
    },
  });
  socket.start();
  // A login or logout takes effect at once; the spec's 3 s token re-check stays as the fallback.
  const unsubscribe = useUserStore.subscribe((state, prev) => {
    if (state.userInfo.token !== prev.userInfo.token) socket.refresh();
  });
  return {
    stop() {
      unsubscribe();
      socket.stop();
    },
  };
}
