/**
 * The training pages' gateway in memory (test/fake-tasks.ts under TRAINING_BASE), with what only training
 * has: creating a task with 智能调度, the image catalogue, mountable datasets and models (and their detail pages,
 * for 用于训练), the metrics file and SSH into a develop task. The real services have their own api tests.
 */
import { TEAM_BASE, TRAINING_BASE, type AssetDetail, type AssetKind, type AssetVersion, type MountableVersion, type ImageItem, type Placement, type SubCenter, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { createFakeTasks, envelope, newTask, T0 } from '../../../test/fake-tasks';

const CENTERS: SubCenter[] = [
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

export function task(id: string, patch: Partial<TaskDetail> = {}): TaskDetail {
  return newTask(
    id,
    {
      kind: 'training',
      type: 'train',
      name: `任务${id}`,
      subCenterId: 'sz-a100',
      subCenterName: '深圳算力分中心',
      cardTypeId: 'a100-80g',
      cardTypeName: 'NVIDIA A100 80G',
      cardNum: 2,
      imageId: 'pytorch-2.3-cuda12',
      imageName: 'PyTorch 2.3 (CUDA 12.1)',
      command: 'python train.py',
      workDir: '/code',
      env: [{ name: 'EPOCHS', value: '3' }],
      maxDurationMinutes: 120,
    },
    patch,
  );
}

/** Assets behind the 数据集 / 模型 fields and their detail pages: alice's MNIST and ResNet, CIFAR shared by bob. */
function assetOf(kind: AssetKind, id: string, name: string, owner: string, versions: [string, number][]): AssetDetail {
  const version = ([vid, n]: [string, number]): AssetVersion => ({
    id: vid,
    version: n,
    subCenterId: 'sz-a100',
    subCenterName: '深圳算力分中心',
    sourcePath: `/data/${name}`,
    state: 'ready',
    reason: '',
    sizeBytes: 2048 * n,
    fileCount: 1,
    copiedBytes: 2048 * n,
    digest: 'd'.repeat(64),
    note: '',
    sourceTaskId: null,
    mountPath: `/mnt/${kind}s/${name}/v${n}`,
    createTime: T0,
  });
  return {
    id,
    kind,
    name,
    description: '',
    tags: [],
    license: '',
    visibility: owner === 'alice' ? 'private' : 'shared',
    publishState: 'none',
    publishReason: '',
    ownerId: owner === 'alice' ? 'u1' : 'u2',
    ownerName: owner,
    mine: owner === 'alice',
    framework: '',
    format: '',
    metrics: {},
    versionCount: versions.length,
    latestSizeBytes: 2048,
    createTime: T0,
    updateTime: T0,
    versions: versions.map(version),
    shares: [],
    teamShares: [],
    added: false,
  };
}
export const ASSETS: AssetDetail[] = [
  assetOf('dataset', 'ds1', 'MNIST', 'alice', [['v1', 1]]),
  assetOf('dataset', 'ds2', 'CIFAR', 'bob', [['c2', 2], ['c1', 1]]),
  assetOf('model', 'm1', 'ResNet', 'alice', [['mv2', 2], ['mv1', 1]]),
];
const MOUNTABLE: MountableVersion[] = ASSETS.flatMap((a) =>
  a.versions.map((v) => ({ assetId: a.id, assetName: a.name, ownerName: a.ownerName, mine: a.mine, versionId: v.id, version: v.version, note: '', subCenterId: v.subCenterId, subCenterName: v.subCenterName, sizeBytes: v.sizeBytes })),
);

export function createFakeTraining() {
  const centerFor = (b: Pick<TrainingTaskCreate, 'subCenterId' | 'cardTypeId'>) =>
    b.subCenterId === 'auto' ? CENTERS.find((c) => c.cardTypes.some((t) => t.id === b.cardTypeId)) : CENTERS.find((c) => c.id === b.subCenterId);

  const fake = createFakeTasks({
    base: TRAINING_BASE,
    centers: CENTERS,
    schedulerKind: 'local',
    partitions: (c) => c.cardTypes.map((t) => ({ name: t.id, cardTypeId: t.id, nodes: 4, cardsPerNode: 8, cpusPerCard: 8, memoryGBPerCard: 64 })),
    folders: ['code'],
    routes: ({ method, url, body, path, route }) => {
      // 付费方's choices: alice is a member of one team and an admin of another.
      if (url.pathname === `${TEAM_BASE}/teams`)
        return envelope([
          { id: 'tm1', name: '蛋白质组', description: '', ownerId: 'u2', ownerName: 'bob', myRole: 'member', memberCount: 2, createTime: T0 },
          { id: 'tm2', name: '计算化学', description: '', ownerId: 'u2', ownerName: 'bob', myRole: 'admin', memberCount: 3, createTime: T0 },
        ]);
      const mountable = /\/(dataset|model)s\/action\/mountable$/.exec(path);
      if (mountable) return envelope(MOUNTABLE.filter((v) => ASSETS.find((a) => a.id === v.assetId)!.kind === mountable[1]));
      const asset = /\/(?:dataset|model)s\/([^/]+)$/.exec(path);
      if (asset && method === 'GET') {
        const a = ASSETS.find((x) => x.id === decodeURIComponent(asset[1]));
        return a ? envelope(a) : envelope(null, 1205, '数据集不存在');
      }
      if (method === 'POST' && route === '/placement') {
        const center = centerFor({ subCenterId: 'auto', cardTypeId: body.cardTypeId });
        if (!center) return envelope(null, 2005, '没有分中心提供该卡型');
        const placement: Placement = {
          subCenterId: center.id,
          subCenterName: center.name,
          reason: `智能调度：${center.name}现有 ${center.cardTypes[0].available} 张空闲的${center.cardTypes[0].name}，可立即满足 ${body.cardNum * (body.nodeNum ?? 1)} 张的需求`,
          candidates: [],
        };
        return envelope(placement);
      }
      if (method === 'GET' && route === '/images') {
        const vendor = CENTERS.flatMap((c) => c.cardTypes).find((t) => t.id === url.searchParams.get('cardTypeId'))?.vendor;
        return envelope([...IMAGES.filter((i) => !vendor || i.cardVendors.includes(vendor)), ...PRIVATE_IMAGES]);
      }
      if (method === 'POST' && route === '/tasks') {
        const { clientRequestId, resubmittedFrom, ...b } = body as TrainingTaskCreate;
        const center = centerFor(b)!;
        const original = resubmittedFrom ? fake.tasks.get(resubmittedFrom) : undefined;
        return fake.submitOnce(clientRequestId, () =>
          task(fake.nextId(), {
            ...b,
            // The fake knows no datasets: a mount comes back with its ids only.
            mounts: (b.mounts ?? []).map((m, i) => ({ ...m, name: m.assetId, version: 1, env: `SUANLI_${m.kind.toUpperCase()}_${i + 1}`, path: `/assets/${m.versionId}` })),
            subCenterId: center.id,
            subCenterName: center.name,
            placementReason: b.subCenterId === 'auto' ? '智能调度：…' : '',
            state: 'QUEUED',
            events: [{ state: 'QUEUED', reason: '等待资源', time: T0 }],
            resubmittedFrom: original ? { id: original.id, type: original.type, name: original.name } : null,
          }),
        );
      }
      const m = /^\/tasks\/([^/]+)\/(ssh|metrics)$/.exec(route ?? '');
      const t = m && fake.tasks.get(decodeURIComponent(m[1]));
      if (!t || method !== 'GET') return undefined;
      // SSH into a running develop task: Slurm centers only (here: ids starting with slurm-), as the server.
      if (m[2] === 'ssh') {
        if (!t.subCenterId.startsWith('slurm-')) return envelope(null, 2251, '本地执行的开发环境不提供 SSH 登录，请使用 Shell工具 或 打开 IDE');
        return envelope({ host: 'login.example', port: 2222, account: 'sla0001', jobId: t.jobId, command: `ssh -p 2222 -t sla0001@login.example srun --jobid=${t.jobId} --overlap --pty bash -l` });
      }
      // Offsets count points here (the server counts bytes); the console only hands them back.
      const points = fake.metrics.get(t.id) ?? [];
      return envelope({ points: points.slice(Number(url.searchParams.get('offset') ?? 0)), nextOffset: points.length, truncated: false });
    },
  });
  return fake;
}
