/**
 * An in-memory gateway for the 科学计算 pages behind a stubbed `fetch`: the foundation's centers and
 * dictionaries, the Slurm template and task calls of docs/plan/9.md and one file service listing, answering
 * the contract's shapes in the envelope. The real services have their own api tests.
 */
import {
  DICTS,
  SLURM_BASE,
  type JobState,
  type SlurmTaskCreate,
  type SlurmTemplate,
  type SlurmTemplateSave,
  type SubCenter,
  type SubCenterDetail,
  type Task,
  type TaskDetail,
  type TaskEvent,
} from '@suanli/contracts';

export interface FakeCall {
  method: string;
  url: URL;
  body: any;
}

export const CENTERS: SubCenter[] = [
  {
    id: 'hpc-a',
    name: '无锡超算分中心',
    region: '江苏·无锡',
    description: 'Slurm',
    status: 'online',
    fileServiceUrl: 'http://fs.test/file-service/hpc-a',
    cardTypes: [
      // The accelerator first: a CPU-only run still gets the CPU type (the form prefers it for 0 cards).
      { id: 'a100-80g', name: 'NVIDIA A100 80G', vendor: 'NVIDIA', memoryGB: 80, total: 16, available: 8 },
      { id: 'cpu-std', name: 'CPU 通用型', vendor: 'Intel', memoryGB: 0, total: 128, available: 100 },
    ],
  },
  {
    id: 'hpc-b',
    name: '长沙超算分中心',
    region: '湖南·长沙',
    description: 'Slurm',
    status: 'maintenance',
    fileServiceUrl: 'http://fs.test/file-service/hpc-b',
    cardTypes: [{ id: 'cpu-std', name: 'CPU 通用型', vendor: 'Intel', memoryGB: 0, total: 64, available: 64 }],
  },
];

export const T0 = 1_700_000_000_000;

export function template(id: string, patch: Partial<SlurmTemplate> = {}): SlurmTemplate {
  return {
    id,
    name: `模板${id}`,
    description: '',
    category: '通用计算',
    script: '#!/bin/bash\necho hi\n',
    params: [],
    defaults: { cardNum: 0, nodeNum: 1, maxDurationMinutes: 60 },
    source: 'user',
    createTime: T0,
    updateTime: T0,
    ...patch,
  };
}

/** Like the platform's NumPy template: every parameter type, with defaults, ranges and options. */
export const NUMPY_PI = template('platform-numpy-pi', {
  name: 'NumPy 蒙特卡洛求 π',
  description: '用 NumPy 随机投点估算圆周率。',
  category: '通用计算',
  source: 'platform',
  script: '#!/bin/bash\npython3 pi.py {{samples}} {{dtype}} {{tag}} {{result}}\n',
  params: [
    { name: 'samples', label: '投点数', type: 'number', required: true, default: 2000000, min: 1000, max: 100000000, description: '随机点越多结果越准' },
    { name: 'dtype', label: '浮点精度', type: 'select', required: true, default: 'float64', options: ['float32', 'float64'] },
    { name: 'tag', label: '运行标签', type: 'text', required: true },
    { name: 'result', label: '结果文件', type: 'path', required: false },
  ],
  defaults: { cardNum: 0, nodeNum: 2, maxDurationMinutes: 120 },
});

export const LAMMPS = template('platform-lammps-melt', {
  name: 'LAMMPS LJ 熔化',
  category: '分子动力学',
  source: 'platform',
  script: '#!/bin/bash\nlmp -in in.melt\n',
  defaults: { cardNum: 0, nodeNum: 1, maxDurationMinutes: 30 },
});

export function task(id: string, patch: Partial<TaskDetail> = {}): TaskDetail {
  return {
    id,
    kind: 'slurm',
    type: 'custom',
    name: `作业${id}`,
    subCenterId: 'hpc-a',
    subCenterName: '无锡超算分中心',
    placementReason: '',
    cardTypeId: 'cpu-std',
    cardTypeName: 'CPU 通用型',
    cardNum: 0,
    nodeNum: 1,
    imageId: '',
    imageName: '',
    command: '#!/bin/bash\necho hi\n',
    workDir: '/',
    env: [],
    maxDurationMinutes: 60,
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
    ...patch,
  };
}

const TERMINAL: JobState[] = ['SUBMIT_FAILED', 'STOPPED', 'SUCCEEDED', 'FAILED', 'UNDERPOWERED'];

export function createFakeSlurm() {
  const calls: FakeCall[] = [];
  const tasks = new Map<string, TaskDetail>();
  const templates = new Map<string, SlurmTemplate>([
    [NUMPY_PI.id, NUMPY_PI],
    [LAMMPS.id, LAMMPS],
  ]);
  const logs = new Map<string, string>();
  let nextId = 100;

  const env = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const strip = (t: TaskDetail): Task => {
    const { events: _events, ...rest } = t;
    return rest;
  };
  const page = <T>(rows: T[], body: { pageNum: number; pageSize: number }) => {
    const start = (body.pageNum - 1) * body.pageSize;
    return env({ list: rows.slice(start, start + body.pageSize), total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
  };

  /** Moves a task as the server's state engine would (the test then pushes the socket event). */
  const move = (id: string, state: JobState, reason = '', time = T0 + 60_000) => {
    const t = tasks.get(id)!;
    const event: TaskEvent = { state, reason, time };
    tasks.set(id, {
      ...t,
      state,
      reason,
      jobId: t.jobId ?? (state === 'QUEUED' || state === 'RUNNING' ? '4242' : null),
      startTime: state === 'RUNNING' ? time : t.startTime,
      endTime: TERMINAL.includes(state) ? time : t.endTime,
      events: [...t.events, event],
    });
  };

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    calls.push({ method, url, body });
    const path = url.pathname;

    if (path.endsWith('/sub-centers/action/list')) return env(CENTERS);
    let m = /\/sub-centers\/([^/]+)\/detail$/.exec(path);
    if (m) {
      const c = CENTERS.find((x) => x.id === m![1])!;
      const detail: SubCenterDetail = {
        ...c,
        loginHost: '127.0.0.1',
        schedulerKind: 'slurm',
        utilization: 0,
        partitions: c.cardTypes.map((t) => ({ name: t.id, cardTypeId: t.id, nodes: 4, cardsPerNode: t.id === 'cpu-std' ? 32 : 8, cpusPerCard: 1, memoryGBPerCard: 4 })),
      };
      return env(detail);
    }
    m = /\/dicts\/action\/query\/dict\/(\w+)$/.exec(path);
    if (m) return env(DICTS[m[1]] ?? []);

    if (path.startsWith(SLURM_BASE)) {
      const route = path.slice(SLURM_BASE.length);
      if (method === 'POST' && route === '/templates/action/page') {
        const keyword = body.keyword?.trim();
        const rows = [...templates.values()]
          .filter((t) => (!keyword || t.name.includes(keyword)) && (!body.category || t.category === body.category) && (!body.source || t.source === body.source))
          .sort((a, b) => (a.source === b.source ? b.createTime - a.createTime : a.source === 'platform' ? -1 : 1));
        return page(rows, body);
      }
      if (method === 'POST' && route === '/templates') {
        const id = `tpl-${nextId++}`;
        const t = template(id, { ...(body as SlurmTemplateSave), source: 'user' });
        templates.set(id, t);
        return env(t);
      }
      m = /^\/templates\/([^/]+)$/.exec(route);
      if (m) {
        const id = decodeURIComponent(m[1]);
        const t = templates.get(id);
        if (!t) return env(null, 2103, '任务模板不存在');
        if (method === 'GET') return env(t);
        if (t.source === 'platform') return env(null, 2102, '平台模板为只读');
        if (method === 'PUT') {
          const next = { ...t, ...(body as SlurmTemplateSave), updateTime: T0 + 1000 };
          templates.set(id, next);
          return env(next);
        }
        if (method === 'DELETE') {
          templates.delete(id);
          return env(null);
        }
      }
      if (method === 'POST' && route === '/tasks/action/page') {
        const rows = [...tasks.values()]
          .filter((t) => (!body.type || t.type === body.type) && (!body.state || t.state === body.state) && (!body.keyword || t.name.includes(body.keyword)))
          .sort((a, b) => b.createTime - a.createTime)
          .map(strip);
        return page(rows, body);
      }
      if (method === 'POST' && route === '/tasks') {
        const b = body as SlurmTaskCreate;
        const id = String(nextId++);
        const center = CENTERS.find((c) => c.id === b.subCenterId)!;
        const tpl = b.templateId ? templates.get(b.templateId) : undefined;
        const t = task(id, {
          name: b.name,
          type: b.type,
          subCenterId: center.id,
          subCenterName: center.name,
          cardTypeId: b.cardTypeId,
          cardTypeName: center.cardTypes.find((c) => c.id === b.cardTypeId)?.name ?? b.cardTypeId,
          cardNum: b.cardNum,
          nodeNum: b.nodeNum,
          command: tpl ? tpl.script : (b.script ?? ''),
          workDir: b.workDir,
          env: b.env,
          maxDurationMinutes: b.maxDurationMinutes,
          templateId: b.templateId ?? null,
          params: b.params ?? null,
          state: 'QUEUED',
          jobId: '4242',
          events: [{ state: 'QUEUED', reason: '等待资源', time: T0 }],
        });
        tasks.set(id, t);
        return env(strip(t));
      }
      m = /^\/tasks\/([^/]+)(\/.*)?$/.exec(route);
      if (m) {
        const id = decodeURIComponent(m[1]);
        const rest = m[2] ?? '';
        const t = tasks.get(id);
        if (!t) return env(null, 2001, '任务不存在');
        if (method === 'GET' && rest === '') return env(t);
        if (method === 'POST' && rest === '/stop') {
          move(id, 'STOPPING', '用户停止');
          return env(strip(tasks.get(id)!));
        }
        if (method === 'POST' && rest === '/resubmit') {
          const nid = String(nextId++);
          const copy = task(nid, { ...t, id: nid, state: 'QUEUED', jobId: null, events: [{ state: 'QUEUED', reason: '', time: T0 }] });
          tasks.set(nid, copy);
          return env(strip(copy));
        }
        if (method === 'POST' && rest === '/save-as-template') {
          const tid = `tpl-${nextId++}`;
          const saved = template(tid, { name: body.name || t.name, description: body.description ?? '', category: body.category ?? '', script: t.command });
          templates.set(tid, saved);
          return env(saved);
        }
        if (method === 'DELETE' && rest === '') {
          tasks.delete(id);
          return env(null);
        }
        if (method === 'GET' && rest === '/log') {
          const bytes = new TextEncoder().encode(logs.get(id) ?? '');
          const offset = Number(url.searchParams.get('offset') ?? 0);
          const limit = Number(url.searchParams.get('limit') ?? 262144);
          const slice = bytes.slice(offset, offset + limit);
          const nextOffset = offset + slice.length;
          return env({ content: new TextDecoder().decode(slice), offset, nextOffset, size: bytes.length, eof: TERMINAL.includes(t.state) && nextOffset >= bytes.length });
        }
      }
      return env(null, 1404, `未知接口 ${method} ${route}`);
    }

    m = /\/file-service\/([\w-]+)\/api\/v1\/directory$/.exec(path);
    if (m && method === 'POST') {
      const dir = url.searchParams.get('path') ?? '/';
      const list = dir === '/' ? [{ id: 'cmVzdWx0cw', name: 'results', path: '/results', type: 'dir', size: 0, updateTime: T0 }] : [];
      return env({ list, total: list.length, pageNum: 1, pageSize: 100 });
    }
    return new Response('not found', { status: 404 });
  };

  return {
    fetch,
    calls,
    tasks,
    templates,
    logs,
    move,
    put: (t: TaskDetail) => tasks.set(t.id, t),
    putTemplate: (t: SlurmTemplate) => templates.set(t.id, t),
    callsTo: (suffix: string, method?: string) => calls.filter((c) => c.url.pathname.endsWith(suffix) && (!method || c.method === method)),
  };
}
