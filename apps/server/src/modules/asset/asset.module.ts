import type { AppContext } from '../../context';
import type { TaskMount, TaskMountInput } from '@suanli/contracts';
import { invalid } from '../../errors';
import type { Principal } from '../auth/session.service';
import type { TaskService } from '../task/task.service';
import { AssetRepository } from './asset.repository';
import { assetRoutes } from './asset.routes';
import { AssetService } from './asset.service';
import { AssetStore } from './asset-store';

/**
 * Datasets (routes under DATASET_BASE) and models (MODEL_BASE): one repository and snapshot store, one
 * service per kind. Versions a stopped gateway left half-copied are failed before serving.
 */
export async function createAssetModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'notify' | 'bus' | 'clusterAccounts'>,
  tasks: TaskService,
  isOperator: (userId: string) => Promise<boolean>,
) {
  const repo = new AssetRepository(deps.db);
  const store = new AssetStore(deps.centers);
  const make = (kind: 'dataset' | 'model') => new AssetService(kind, repo, store, deps.clusterAccounts, deps.centers, deps.clock, deps.notify, deps.bus, {
      get: (p, taskId) => tasks.detail(p, 'training', taskId),
      mountsInUse: (assetId, versionId) => tasks.mountsInUse(assetId, versionId),
    }, isOperator);
  const datasets = make('dataset');
  const models = make('model');
  // One call fails the half-copied versions of both kinds (the table is shared).
  await datasets.recover();
  /** The task form's 数据集 / 模型 mounts, resolved for the task's center: `SUANLI_DATASET_<n>`, `SUANLI_MODEL_<n>`. */
  const resolveMounts = async (p: Principal, inputs: TaskMountInput[], centerId: string): Promise<TaskMount[]> => {
    const seen = new Set<string>();
    const count = { dataset: 0, model: 0 };
    const out: TaskMount[] = [];
    for (const m of inputs) {
      if (seen.has(m.versionId)) throw invalid('mounts', '同一版本只能挂载一次');
      seen.add(m.versionId);
      const env = `SUANLI_${m.kind.toUpperCase()}_${++count[m.kind]}`;
      out.push(await (m.kind === 'dataset' ? datasets : models).mount(p, m.assetId, m.versionId, centerId, env));
    }
    return out;
  };
  return {
    datasets,
    models,
    resolveMounts,
    datasetRoutes: assetRoutes(datasets),
    modelRoutes: assetRoutes(models),
    async close() {
      await Promise.all([datasets.idle(), models.idle()]);
      await store.close();
    },
  };
}
