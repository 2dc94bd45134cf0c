/**
 * An in-memory gateway for the training pages behind a stubbed `fetch`: the foundation's centers and
 * dictionaries, the training calls of docs/plan/9.md and one file service listing, answering the
 * contract's shapes in the envelope. The real services have their own api tests.
 */
import {
  DICTS,
  type ImageItem,
  type JobState,
  type MetricPoint,
  type Placement,
  type SubCenter,
  type SubCenterDetail,
  type Task,
  type TaskDetail,
  type TaskEvent,
  type TrainingTaskCreate,
} from '@suanli/contracts';

export interface FakeCall {
  method: string;
  url: URL;
  body: any;
}

export const CENTERS: SubCenter[] = [
  {
    id: 'sz-a100',
    name: '深圳算力分中心',
    region: '广东·深圳',
    description: 'A100',
    status: 'online',
    fileServiceUrl: 'http://fs.test/file-service/sz-a100',
    cardTypes: [{ id: 'a100-80g', name: 'NVIDIA A100 80G', vendor: 'NVIDIA', memoryGB: 80, total: 32, available: 30 }],
  },
  {
    id: 'gz-ascend',
    name: '广州算力分中心',
    region: '广东·广州',
    description: '910B',
    status: 'online',
    fileServiceUrl: 'http://fs.test/file-service/gz-ascend',
    cardTypes: [{ id: 'ascend-910b', name: '昇腾 910B', vendor: 'Huawei', memoryGB: 64, total: 32, available: 32 }],
  },
];

const IMAGES: ImageItem[] = [
  { id: 'pytorch-2.3-cuda12', name: 'PyTorch 2.3 (CUDA 12.1)', framework: 'PyTorch', version: '2.3.1', accelerator: 'CUDA 12.1', cardVendors: ['NVIDIA'], uri: 'docker://x/pytorch', description: 'PyTorch' },
  { id: 'mindspore-2.3-cann8', name: 'MindSpore 2.3 (CANN 8.0)', framework: 'MindSpore', version: '2.3.0', accelerator: 'CANN 8.0', cardVendors: ['Huawei'], uri: 'docker://x/ms', description: 'MindSpore' },
];
/** The caller's private images, as the server appends them (any card type). Tests add to it. */
export const PRIVATE_IMAGES: ImageItem[] = [];

const T0 = 1_700_000_000_000;

export function task(id: string, patch: Partial<TaskDetail> = {}): TaskDetail {
  return {
    id,
    kind: 'training',
    type: 'train',
    name: `任务${id}`,
    subCenterId: 'sz-a100',
    subCenterName: '深圳算力分中心',
    placementReason: '',
    cardTypeId: 'a100-80g',
    cardTypeName: 'NVIDIA A100 80G',
    cardNum: 2,
    nodeNum: 1,
    imageId: 'pytorch-2.3-cuda12',
    imageName: 'PyTorch 2.3 (CUDA 12.1)',
    command: 'python train.py',
    workDir: '/code',
    env: [{ name: 'EPOCHS', value: '3' }],
    maxDurationMinutes: 120,
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

export function createFakeTraining() {
  const calls: FakeCall[] = [];
  const tasks = new Map<string, TaskDetail>();
  const logs = new Map<string, string>();
  const metrics = new Map<string, MetricPoint[]>();
  let nextId = 100;

  const env = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const strip = (t: TaskDetail): Task => {
    const { events: _events, ...rest } = t;
    return rest;
  };

  /** Moves a task as the server's state engine would (the test then pushes the socket event). */
  const move = (id: string, state: JobState, reason = '', time = T0 + 60_000) => {
    const t = tasks.get(id)!;
    const event: TaskEvent = { state, reason, time };
    tasks.set(id, { ...t, state, reason, startTime: state === 'RUNNING' ? time : t.startTime, events: [...t.events, event] });
  };

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    calls.push({ method, url, body });
    const path = url.pathname;

    if (path.endsWith('/sub-centers/action/list')) return env(CENTERS);
    if (path.endsWith('/datasets/action/mountable')) {
      return env([{ assetId: 'ds1', assetName: 'MNIST', ownerName: 'alice', mine: true, versionId: 'v1', version: 1, note: '', subCenterId: 'sz-a100', subCenterName: '深圳算力分中心', sizeBytes: 2048 }]);
    }
    if (path.endsWith('/action/mountable')) return env([]);
    let m = /\/sub-centers\/([^/]+)\/detail$/.exec(path);
    if (m) {
      const c = CENTERS.find((x) => x.id === m![1])!;
      const detail: SubCenterDetail = {
        ...c,
        loginHost: '127.0.0.1',
        schedulerKind: 'local',
        utilization: 0,
        partitions: c.cardTypes.map((t) => ({ name: t.id, cardTypeId: t.id, nodes: 4, cardsPerNode: 8, cpusPerCard: 8, memoryGBPerCard: 64 })),
      };
      return env(detail);
    }
    m = /\/dicts\/action\/query\/dict\/(\w+)$/.exec(path);
    if (m) return env(DICTS[m[1]] ?? []);

    if (path.startsWith('/gateway/training/api/v1')) {
      const route = path.slice('/gateway/training/api/v1'.length);
      if (method === 'POST' && route === '/tasks/action/page') {
        const rows = [...tasks.values()]
          .filter((t) => (!body.type || t.type === body.type) && (!body.state || t.state === body.state) && (!body.keyword || t.name.includes(body.keyword)))
          .sort((a, b) => b.createTime - a.createTime);
        const start = (body.pageNum - 1) * body.pageSize;
        return env({ list: rows.slice(start, start + body.pageSize).map(strip), total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
      }
      if (method === 'POST' && route === '/placement') {
        const center = CENTERS.find((c) => c.cardTypes.some((t) => t.id === body.cardTypeId));
        if (!center) return env(null, 2005, '没有分中心提供该卡型');
        const placement: Placement = {
          subCenterId: center.id,
          subCenterName: center.name,
          reason: `智能调度：${center.name}现有 ${center.cardTypes[0].available} 张空闲的${center.cardTypes[0].name}，可立即满足 ${body.cardNum * (body.nodeNum ?? 1)} 张的需求`,
          candidates: [],
        };
        return env(placement);
      }
      if (method === 'GET' && route === '/images') {
        const vendor = CENTERS.flatMap((c) => c.cardTypes).find((t) => t.id === url.searchParams.get('cardTypeId'))?.vendor;
        return env([...IMAGES.filter((i) => !vendor || i.cardVendors.includes(vendor)), ...PRIVATE_IMAGES]);
      }
      if (method === 'POST' && route === '/tasks') {
        const b = body as TrainingTaskCreate;
        const id = String(nextId++);
        const center = b.subCenterId === 'auto' ? CENTERS.find((c) => c.cardTypes.some((t) => t.id === b.cardTypeId))! : CENTERS.find((c) => c.id === b.subCenterId)!;
        const t = task(id, {
          ...b,
          // The fake knows no datasets: a mount comes back with its ids only.
          mounts: (b.mounts ?? []).map((m, i) => ({ ...m, name: m.assetId, version: 1, env: `SUANLI_${m.kind.toUpperCase()}_${i + 1}`, path: `/assets/${m.versionId}` })),
          subCenterId: center.id,
          subCenterName: center.name,
          placementReason: b.subCenterId === 'auto' ? '智能调度：…' : '',
          state: 'QUEUED',
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
        if (!t) return env(null, 1205, '训练任务不存在');
        if (method === 'GET' && rest === '') return env(t);
        // SSH into a running develop task: Slurm centers only (here: ids starting with slurm-), as the server.
        if (method === 'GET' && rest === '/ssh') {
          if (!t.subCenterId.startsWith('slurm-')) return env(null, 2251, '本地执行的开发环境不提供 SSH 登录，请使用 Shell工具 或 打开 IDE');
          return env({ host: 'login.example', port: 2222, account: 'sla0001', jobId: t.jobId, command: `ssh -p 2222 -t sla0001@login.example srun --jobid=${t.jobId} --overlap --pty bash -l` });
        }
        if (method === 'POST' && rest === '/stop') {
          move(id, 'STOPPING', '用户停止');
          return env(strip(tasks.get(id)!));
        }
        if (method === 'DELETE' && rest === '') {
          tasks.delete(id);
          return env(null);
        }
        if (method === 'GET' && rest === '/log') {
          const text = logs.get(id) ?? '';
          const bytes = new TextEncoder().encode(text);
          const offset = Number(url.searchParams.get('offset') ?? 0);
          const limit = Number(url.searchParams.get('limit') ?? 262144);
          const slice = bytes.slice(offset, offset + limit);
          const nextOffset = offset + slice.length;
          const terminal = ['SUBMIT_FAILED', 'STOPPED', 'SUCCEEDED', 'FAILED', 'UNDERPOWERED'].includes(t.state);
          return env({ content: new TextDecoder().decode(slice), offset, nextOffset, size: bytes.length, eof: terminal && nextOffset >= bytes.length });
        }
        if (method === 'GET' && rest === '/metrics') {
          const points = metrics.get(id) ?? [];
          const offset = Number(url.searchParams.get('offset') ?? 0);
          // Offsets count points here (the server counts bytes); the console only hands them back.
          return env({ points: points.slice(offset), nextOffset: points.length, truncated: false });
        }
      }
      return env(null, 1404, `未知接口 ${method} ${route}`);
    }

    m = /\/file-service\/([\w-]+)\/api\/v1\/directory$/.exec(path);
    if (m && method === 'POST') {
      const dir = url.searchParams.get('path') ?? '/';
      const list = dir === '/' ? [{ id: 'Y29kZQ', name: 'code', path: '/code', type: 'dir', size: 0, updateTime: T0 }] : [];
      return env({ list, total: list.length, pageNum: 1, pageSize: 100 });
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
    put: (t: TaskDetail) => tasks.set(t.id, t),
    callsTo: (suffix: string, method?: string) => calls.filter((c) => c.url.pathname.endsWith(suffix) && (!method || c.method === method)),
  };
}
