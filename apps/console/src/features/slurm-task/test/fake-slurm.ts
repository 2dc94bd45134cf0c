/**
 * The 科学计算 pages' gateway in memory (test/fake-tasks.ts under SLURM_BASE), with what only Slurm tasks
 * have: templates (platform ones read-only), creating a task from a template or a script, and saving a task
 * as a template. The real services have their own api tests.
 */
import { SLURM_BASE, type OutsideJob, type SlurmTaskCreate, type SlurmTemplate, type SlurmTemplateSave, type SubCenter, type TaskDetail } from '@suanli/contracts';
import { createFakeTasks, envelope, newTask, page, T0 } from '../../../test/fake-tasks';

const CENTERS: SubCenter[] = [
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

const LAMMPS = template('platform-lammps-melt', {
  name: 'LAMMPS LJ 熔化',
  category: '分子动力学',
  source: 'platform',
  script: '#!/bin/bash\nlmp -in in.melt\n',
  defaults: { cardNum: 0, nodeNum: 1, maxDurationMinutes: 30 },
});

export function task(id: string, patch: Partial<TaskDetail> = {}): TaskDetail {
  return newTask(
    id,
    {
      kind: 'slurm',
      type: 'custom',
      name: `作业${id}`,
      subCenterId: 'hpc-a',
      subCenterName: '无锡超算分中心',
      cardTypeId: 'cpu-std',
      cardTypeName: 'CPU 通用型',
      cardNum: 0,
      imageId: '',
      imageName: '',
      command: '#!/bin/bash\necho hi\n',
      workDir: '/',
      env: [],
      maxDurationMinutes: 60,
    },
    patch,
  );
}

/** `schedulerKind`: what the centers' detail says (the embedded default's centers run jobs on the local executor). */
export function createFakeSlurm({ schedulerKind = 'slurm' }: { schedulerKind?: 'slurm' | 'local' } = {}) {
  const templates = new Map<string, SlurmTemplate>([
    [NUMPY_PI.id, NUMPY_PI],
    [LAMMPS.id, LAMMPS],
  ]);

  const templateCall = (method: string, route: string, body: any): Response | undefined => {
    if (method === 'POST' && route === '/templates/action/page') {
      const keyword = body.keyword?.trim();
      const rows = [...templates.values()]
        .filter((t) => (!keyword || t.name.includes(keyword)) && (!body.category || t.category === body.category) && (!body.source || t.source === body.source))
        .sort((a, b) => (a.source === b.source ? b.createTime - a.createTime : a.source === 'platform' ? -1 : 1));
      return page(rows, body);
    }
    if (method === 'POST' && route === '/templates') {
      const t = template(`tpl-${fake.nextId()}`, { ...(body as SlurmTemplateSave), source: 'user' });
      templates.set(t.id, t);
      return envelope(t);
    }
    const m = /^\/templates\/([^/]+)$/.exec(route);
    if (!m) return undefined;
    const id = decodeURIComponent(m[1]);
    const t = templates.get(id);
    if (!t) return envelope(null, 2103, '任务模板不存在');
    if (method === 'GET') return envelope(t);
    if (t.source === 'platform') return envelope(null, 2102, '平台模板为只读');
    if (method === 'PUT') {
      const next = { ...t, ...(body as SlurmTemplateSave), updateTime: T0 + 1000 };
      templates.set(id, next);
      return envelope(next);
    }
    if (method === 'DELETE') {
      templates.delete(id);
      return envelope(null);
    }
    return undefined;
  };

  const outsideJobs: OutsideJob[] = [];
  const fake = createFakeTasks({
    base: SLURM_BASE,
    centers: CENTERS,
    schedulerKind,
    partitions: (c) => c.cardTypes.map((t) => ({ name: t.id, cardTypeId: t.id, nodes: 4, cardsPerNode: t.id === 'cpu-std' ? 32 : 8, cpusPerCard: 1, memoryGBPerCard: 4 })),
    folders: ['results'],
    routes: ({ method, body, route, path }) => {
      // 外部作业 (issue 25) live under the order module's base.
      if (method === 'POST' && path.endsWith('/outside-jobs/action/page')) return page(outsideJobs, body);
      if (route === null) return undefined;
      if (method === 'POST' && route === '/tasks') {
        const b = body as SlurmTaskCreate;
        const center = CENTERS.find((c) => c.id === b.subCenterId)!;
        const tpl = b.templateId ? templates.get(b.templateId) : undefined;
        return fake.submitOnce(b.clientRequestId, () => task(fake.nextId(), {
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
        }));
      }
      const saveAs = /^\/tasks\/([^/]+)\/save-as-template$/.exec(route);
      const source = saveAs && fake.tasks.get(decodeURIComponent(saveAs[1]));
      if (source && method === 'POST') {
        const saved = template(`tpl-${fake.nextId()}`, { name: body.name || source.name, description: body.description ?? '', category: body.category ?? '', script: source.command });
        templates.set(saved.id, saved);
        return envelope(saved);
      }
      return templateCall(method, route, body);
    },
  });
  return { ...fake, templates, outsideJobs, putTemplate: (t: SlurmTemplate) => templates.set(t.id, t) };
}
