/**
 * The in-memory gateway both task families' page tests stand on, behind a stubbed `fetch`: the foundation's
 * centers and dictionaries, one file service listing, and the task calls every family shares
 * (`shared/task/task-calls.ts` under the family's base: page, get, stop, resubmit, delete, log) over a task
 * table that `move` drives as the server's state engine would. A family's fake adds its own calls (create,
 * templates, metrics…) through `routes`. Answers are the contract's shapes in the envelope; the real services
 * have their own api tests.
 */
import { DICTS, isTerminal, type CompPowerBucket, type JobState, type MetricPoint, type SubCenter, type SubCenterDetail, type Task, type TaskDetail } from '@suanli/contracts';
import type { FakeBackend } from './page-test';

export interface FakeCall {
  method: string;
  url: URL;
  body: any;
}

/** A call as a family's routes see it: `route` is the path under the family's base, null outside it. */
interface FakeRequest extends FakeCall {
  path: string;
  route: string | null;
}

export const T0 = 1_700_000_000_000;

/** The gateway's envelope around an answer (code 0) or a refusal. */
export const envelope = (data: unknown, code = 0, message = '操作成功') =>
  new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });

/** One page of `rows`, as the `…/action/page` calls answer. */
export const page = <T>(rows: T[], body: { pageNum: number; pageSize: number }) => {
  const start = (body.pageNum - 1) * body.pageSize;
  return envelope({ list: rows.slice(start, start + body.pageSize), total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
};

/** What a family's fixture says about a new task; the rest is what every task starts with. */
type TaskBasics = Pick<
  TaskDetail,
  'kind' | 'type' | 'name' | 'subCenterId' | 'subCenterName' | 'cardTypeId' | 'cardTypeName' | 'cardNum' | 'imageId' | 'imageName' | 'command' | 'workDir' | 'env' | 'maxDurationMinutes'
>;

/** A task just created (CREATED at T0, no job yet) with a family's basics and the test's `patch`. */
export function newTask(id: string, basics: TaskBasics, patch: Partial<TaskDetail> = {}): TaskDetail {
  return {
    id,
    placementReason: '',
    nodeNum: 1,
    state: 'CREATED',
    reason: '',
    estimatedStart: null,
    jobId: null,
    exitCode: null,
    logPath: `/.suanli/tasks/${id}/output.log`,
    createTime: T0,
    startTime: null,
    endTime: null,
    templateId: null,
    params: null,
    mounts: [],
    events: [{ state: 'CREATED', reason: '', time: T0 }],
    consumed: '0.00',
    diagnosis: null,
    efficiency: null,
    resubmittedFrom: null,
    ...basics,
    ...patch,
  };
}

/** A task as lists and changes return it (without its events and consumption). */
export const withoutEvents = (t: TaskDetail): Task => {
  const { events: _events, consumed: _consumed, diagnosis: _diagnosis, efficiency: _efficiency, resubmittedFrom: _from, ...rest } = t;
  return rest;
};

interface FamilyOptions {
  /** The family's API base (TRAINING_BASE, SLURM_BASE). */
  base: string;
  centers: SubCenter[];
  schedulerKind: SubCenterDetail['schedulerKind'];
  /** A center's partitions (the forms bound cards per node and nodes by them). */
  partitions: (center: SubCenter) => SubCenterDetail['partitions'];
  /** The folders at the root of every center's storage (the folder pickers list them). */
  folders: string[];
  /** The family's own calls, asked first; `undefined` leaves a call to the shared ones. */
  routes?: (req: FakeRequest) => Response | undefined;
}

export function createFakeTasks({ base, centers, schedulerKind, partitions, folders, routes }: FamilyOptions) {
  const calls: FakeCall[] = [];
  const tasks = new Map<string, TaskDetail>();
  const logs = new Map<string, string>();
  /** Each task's curve (the metrics file's points); training tests fill it. */
  const metrics = new Map<string, MetricPoint[]>();
  let lastId = 99;
  /** Ids the server would hand out: '100', '101'… (one sequence for every kind of record). */
  const nextId = () => String(++lastId);
  /** clientRequestId → the task that submission made: the server answers a retried submission with it. */
  const submissions = new Map<string, string>();
  /**
   * Faults a test sets: `loseAnswers` submissions (create, resubmit) still make their task, but their answer
   * is lost on the way — the browser's fetch fails as on a dropped connection.
   */
  /** loseAnswers: submissions whose answer is lost; refuse: the business error submissions get (2507…). */
  const faults: { loseAnswers: number; refuse?: { code: number; message: string; data?: unknown } } = { loseAnswers: 0 };
  /** The caller's compute-power buckets (the header's call; the forms' 预计最多消耗 reads them). Tests fill it. */
  const buckets: CompPowerBucket[] = [];
  /** A team's buckets by team id (付费方 团队: the forms' 预计最多消耗 reads them). Tests fill it. */
  const teamBuckets = new Map<string, CompPowerBucket[]>();
  /** A submitting call as the server answers it: the task its clientRequestId already made, else a new one. */
  const submitOnce = (clientRequestId: string | undefined, make: () => TaskDetail): Response => {
    const known = clientRequestId ? submissions.get(clientRequestId) : undefined;
    const t = known ? tasks.get(known)! : make();
    if (!known) {
      tasks.set(t.id, t);
      if (clientRequestId) submissions.set(clientRequestId, t.id);
    }
    return envelope(withoutEvents(t));
  };

  /**
   * Moves a task as the server's state engine would (the test then pushes the socket event): a job id once
   * it reached the scheduler, the start time when it runs, the end time when it ends.
   */
  const move = (id: string, state: JobState, reason = '', time = T0 + 60_000) => {
    const t = tasks.get(id)!;
    tasks.set(id, {
      ...t,
      state,
      reason,
      jobId: t.jobId ?? (state === 'QUEUED' || state === 'RUNNING' ? '4242' : null),
      startTime: state === 'RUNNING' ? time : t.startTime,
      endTime: isTerminal(state) ? time : t.endTime,
      events: [...t.events, { state, reason, time }],
    });
  };

  const taskCall = (method: string, route: string, body: any, url: URL): Response | undefined => {
    if (method === 'POST' && route === '/tasks/action/page') {
      const rows = [...tasks.values()]
        .filter((t) => (!body.type || t.type === body.type) && (!body.state || t.state === body.state) && (!body.keyword || t.name.includes(body.keyword)))
        .sort((a, b) => b.createTime - a.createTime);
      return page(rows.map(withoutEvents), body);
    }
    // 任务对比, with the server's refusals (compare.api.test.ts has the real ones).
    if (method === 'POST' && route === '/tasks/action/compare') {
      const ids = [...new Set(body.ids as string[])];
      if (ids.length > 5) return envelope(null, 2014, '最多同时对比 5 个任务');
      const found = ids.map((id) => tasks.get(id));
      if (found.some((x) => !x)) return envelope(null, 1205, '任务不存在');
      if (new Set(found.map((x) => x!.type)).size > 1) return envelope(null, 2015, '只能对比同一类型的任务');
      return envelope({ tasks: found.map((x) => ({ ...withoutEvents(x!), metrics: metrics.get(x!.id) ?? [], metricsTruncated: false })) });
    }
    const m = /^\/tasks\/([^/]+)(\/.*)?$/.exec(route);
    if (!m) return undefined;
    const id = decodeURIComponent(m[1]);
    const rest = m[2] ?? '';
    const t = tasks.get(id);
    if (!t) return envelope(null, 1205, '任务不存在');
    if (method === 'GET' && rest === '') return envelope(t);
    if (method === 'DELETE' && rest === '') {
      tasks.delete(id);
      return envelope(null);
    }
    if (method === 'POST' && rest === '/stop') {
      move(id, 'STOPPING', '用户停止');
      return envelope(withoutEvents(tasks.get(id)!));
    }
    if (method === 'POST' && rest === '/resubmit') {
      return submitOnce(body?.clientRequestId, () => {
        const nid = nextId();
        return newTask(nid, t, { id: nid, state: 'QUEUED', jobId: null, events: [{ state: 'QUEUED', reason: '', time: T0 }], resubmittedFrom: { id: t.id, type: t.type, name: t.name } });
      });
    }
    if (method === 'GET' && rest === '/log') {
      const bytes = new TextEncoder().encode(logs.get(id) ?? '');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 262144);
      const slice = bytes.slice(offset, offset + limit);
      const nextOffset = offset + slice.length;
      return envelope({ content: new TextDecoder().decode(slice), offset, nextOffset, size: bytes.length, eof: isTerminal(t.state) && nextOffset >= bytes.length });
    }
    return undefined;
  };

  const fetch: FakeBackend['fetch'] = async (input, init = {}) => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    calls.push({ method, url, body });
    const path = url.pathname;
    const route = path.startsWith(base) ? path.slice(base.length) : null;

    const submitting = method === 'POST' && route !== null && (route === '/tasks' || route.endsWith('/resubmit'));
    const answer = routes?.({ method, url, body, path, route }) ?? (route !== null ? (taskCall(method, route, body, url) ?? envelope(null, 1404, `未知接口 ${method} ${route}`)) : undefined);
    if (submitting && faults.refuse) {
      const { code, message, data } = faults.refuse;
      return new Response(JSON.stringify({ message: { code, message }, data: data ?? null }), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    if (submitting && faults.loseAnswers > 0) {
      faults.loseAnswers--;
      throw new TypeError('Failed to fetch');
    }
    if (answer) return answer;

    if (path.endsWith('/sub-centers/action/list')) return envelope(centers);
    const team = /\/comp-powers\/team\/([^/]+)$/.exec(path);
    if (team) return envelope({ userId: `team:${team[1]}`, total: '0.00', standardTotal: '0.00', items: teamBuckets.get(decodeURIComponent(team[1])) ?? [] });
    if (path.includes('/comp-powers/')) return envelope({ userId: 'u1', total: '0.00', standardTotal: '0.00', items: buckets });
    let m = /\/sub-centers\/([^/]+)\/detail$/.exec(path);
    if (m) {
      const c = centers.find((x) => x.id === m![1])!;
      const detail: SubCenterDetail = { ...c, loginHost: '127.0.0.1', schedulerKind, utilization: 0, partitions: partitions(c) };
      return envelope(detail);
    }
    m = /\/dicts\/action\/query\/dict\/(\w+)$/.exec(path);
    if (m) return envelope(DICTS[m[1]] ?? []);
    if (/\/file-service\/[\w-]+\/api\/v1\/directory$/.test(path) && method === 'POST') {
      const dir = url.searchParams.get('path') ?? '/';
      const list = dir === '/' ? folders.map((name) => ({ id: btoa(name).replace(/=+$/, ''), name, path: `/${name}`, type: 'dir', size: 0, updateTime: T0 })) : [];
      return envelope({ list, total: list.length, pageNum: 1, pageSize: 100 });
    }
    return new Response('not found', { status: 404 });
  };

  return {
    fetch,
    calls,
    tasks,
    logs,
    metrics,
    move,
    nextId,
    submitOnce,
    faults,
    buckets,
    teamBuckets,
    put: (t: TaskDetail) => tasks.set(t.id, t),
    callsTo: (suffix: string, method?: string) => calls.filter((c) => c.url.pathname.endsWith(suffix) && (!method || c.method === method)),
  };
}
