import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { DATASET_BASE, MODEL_BASE, type TaskMount, type TaskMountInput } from '@suanli/contracts';
import { invalid } from '../../errors';
import type { Principal } from '../access/principal';
import type { TaskQueries } from '../task/task-queries';
import type { TaskService, WaitingTask } from '../task/task.service';
import { AssetRepository } from './asset.repository';
import { assetRoutes } from './asset.routes';
import { AssetService, versionLabel, type PendingCopy, type VersionCopies } from './asset.service';
import type { MountResolver } from '../training/training.service';
import { AssetAccess } from './asset-access';
import { AssetStore } from './asset-store';
import type { AssetTeams } from '../team/team.service';

/**
 * What the asset module uses of the task module: releasing or failing the tasks waiting for a version to reach
 * their center (each poll hands them to `settleWaiting`), a caller's training task (a snapshot of its output), and whether an
 * unfinished task mounts a version.
 */
export interface AssetTasks {
  service: Pick<TaskService, 'releaseWaiting' | 'failWaiting'>;
  queries: Pick<TaskQueries, 'detail' | 'mountsInUse'>;
}

/**
 * Datasets (routes under DATASET_BASE) and models (MODEL_BASE): one repository and snapshot store, one
 * service per kind. Versions a stopped gateway left half-copied are failed before serving.
 */
export async function createAssetModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'notify' | 'bus' | 'clusterAccounts' | 'log' | 'access' | 'userDirectory' | 'storage' | 'audit'>,
  tasks: AssetTasks,
  copies: VersionCopies & { syncVersion(ownerId: string, v: PendingCopy & { targetCenterId: string }): Promise<string> },
  /** Teams (ADR 0018): shares with a team follow its membership. */
  teams: AssetTeams & { afterMembership(fn: (teamId: string) => Promise<void>): void },
) {
  const repo = new AssetRepository(deps.db);
  const store = new AssetStore(deps.storage);
  const folders = new AssetAccess(repo, store, deps.clusterAccounts, deps.centers, deps.log, teams);
  const make = (kind: 'dataset' | 'model') => new AssetService(kind, repo, store, deps.clusterAccounts, deps.centers, deps.clock, deps.notify, deps.bus, {
      get: (p, taskId) => tasks.queries.detail(p, 'training', taskId),
      mountsInUse: (assetId, versionId) => tasks.queries.mountsInUse(assetId, versionId),
    }, deps.access, deps.userDirectory, copies, folders, deps.audit, teams);
  const datasets = make('dataset');
  const models = make('model');
  // A member who joins or leaves a team gains or loses the folders of what is shared with it, at once.
  teams.afterMembership(async (teamId) => {
    await datasets.teamMembershipChanged(teamId);
    await models.teamMembershipChanged(teamId);
  });
  // One call fails the half-copied versions of both kinds (the table is shared).
  await datasets.recover();
  // Areas written before ADR 0013 (0755, every account read every version) get each asset's access once
  // (before serving where the disk is here, in the background for a center behind its file service).
  await folders.applyAll();
  const centerName = (id: string) => deps.centers.find((c) => c.id === id)?.name ?? id;
  /**
   * The task form's 数据集 / 模型 mounts, resolved for the task's center: `SUANLI_DATASET_<n>`, `SUANLI_MODEL_<n>`.
   * Versions on another center make the task wait while they are synced to its center.
   */
  const resolveMounts: MountResolver = {
    async resolve(p: Principal, inputs: TaskMountInput[], centerId: string) {
      const seen = new Set<string>();
      const count = { dataset: 0, model: 0 };
      const mounts: TaskMount[] = [];
      const pending: PendingCopy[] = [];
      for (const m of inputs) {
        if (seen.has(m.versionId)) throw invalid('mounts', '同一版本只能挂载一次');
        seen.add(m.versionId);
        const env = `SUANLI_${m.kind.toUpperCase()}_${++count[m.kind]}`;
        const r = await (m.kind === 'dataset' ? datasets : models).mount(p, m.assetId, m.versionId, centerId, env);
        mounts.push(r.mount);
        if (r.pending) pending.push(r.pending);
      }
      const waitingFor = pending.length
        ? `等待数据同步：${pending.map((c) => `${c.label}（${centerName(c.sourceCenterId)}）`).join('、')} 正在同步到${centerName(centerId)}，完成后自动提交`
        : undefined;
      const startCopies = async () => {
        for (const c of pending) await copies.syncVersion(p.userId, { ...c, targetCenterId: centerId });
      };
      return { mounts, waitingFor, startCopies };
    },
  };

  /**
   * After each poll of a center: its tasks waiting for data are submitted once every version they mount is
   * there (the copy adopted: manifest, read-only), failed when a copy failed, and a copy nobody started (the
   * gateway stopped between the task and its sync) is started.
   */
  const settleWaiting = async (centerId: string, waiting: readonly WaitingTask[]) => {
    const target = deps.centers.find((c) => c.id === centerId);
    if (!target) return;
    for (const { row, mounts } of waiting) {
      let ready = true;
      let failure = '';
      for (const m of mounts) {
        const v = await repo.findVersion(m.assetId, m.versionId);
        const label = versionLabel(m.kind, m.name, m.version);
        const source = v && deps.centers.find((c) => c.id === v.sub_center_id);
        if (!v || !source) {
          failure ||= `${label} 已被删除`;
          continue;
        }
        if (source.id === centerId) continue;
        const copy = await copies.versionCopy(m.versionId, centerId);
        if (copy.state === 'ready') {
          await store.adoptCopy(source, target, m.assetId, m.versionId);
          // The copy's folder lets in exactly who may read it on this center (ADR 0013).
          try {
            await folders.apply(m.assetId, target);
          } catch (e) {
            failure ||= `${label} ${e instanceof Error ? e.message : '数据目录的访问权限设置失败'}`;
          }
          continue;
        }
        ready = false;
        if (copy.state === 'failed') failure ||= `${label} 同步失败（${copy.message}）`;
        if (copy.state === 'none') {
          await folders.apply(m.assetId, target, { create: true });
          await copies.syncVersion(row.owner_id, { assetId: m.assetId, versionId: m.versionId, sourceCenterId: source.id, targetCenterId: centerId, label });
        }
      }
      if (failure) await tasks.service.failWaiting(row, `数据同步失败：${failure}`);
      else if (ready) await tasks.service.releaseWaiting(row);
    }
  };
  return {
    datasets,
    models,
    resolveMounts,
    settleWaiting,
    mount: {
      name: 'asset',
      routes: [
        { prefix: DATASET_BASE, plugin: assetRoutes(datasets) },
        { prefix: MODEL_BASE, plugin: assetRoutes(models) },
      ],
      async close() {
        await Promise.all([datasets.idle(), models.idle(), folders.close()]);
      },
    } satisfies ModuleMount,
  };
}
