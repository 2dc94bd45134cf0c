import fs from 'node:fs';
import path from 'node:path';
import { activeAccount, type CenterStorages } from '../../center-storage/center-storage';
import type { Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { TaskService } from '../task/task.service';

const SCRIPT = path.join(import.meta.dirname, 'demo/train.py');

/**
 * The embedded default's first-start demo: a small real training run (a Python line fit that writes its loss
 * curve) on the first local center, so a person who just ran `npm start` sees a task go to 运行成功 with a
 * log and a training curve. Runs on the host's python3 (no image runtime on a laptop either).
 */
export async function submitDemoTask(tasks: Pick<TaskService, 'centers' | 'create'>, accounts: ClusterAccountService, storage: CenterStorages, p: Principal) {
  const center = tasks.centers().find((c) => c.scheduler.kind === 'local' && c.status === 'online');
  const cardType = center?.cardTypes.find((t) => t.vendor === 'NVIDIA') ?? center?.cardTypes[0];
  if (!center || !cardType) return null;
  const account = await accounts.ensure(p.userId, center.id);
  await storage.of(center).writeFile(activeAccount(account), '/demo/train.py', fs.createReadStream(SCRIPT));
  return tasks.create(p, {
    kind: 'training',
    type: 'train',
    name: '示例：线性回归训练',
    subCenterId: center.id,
    placementReason: '',
    cardTypeId: cardType.id,
    cardNum: 1,
    nodeNum: 1,
    imageId: 'pytorch-2.3-cuda12',
    command: 'python3 train.py',
    workDir: '/demo',
    env: [],
    maxDurationMinutes: 10,
  });
}
