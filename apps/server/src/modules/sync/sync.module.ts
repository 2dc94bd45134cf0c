import { formatFileSize, WS_SYNC_CHANGED } from '@suanli/contracts';
import { SYNC_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { LeaseRepository } from '../../db/lease.repository';
import type { SyncReceiver } from '../../file-service/sync.service';

import { SyncRepository } from './sync.repository';
import { syncRoutes } from './sync.routes';
import { SyncRunner, type SyncRunnerOptions } from './sync.runner';
import { SyncJobService, toSyncJob } from './sync.service';

/**
 * 跨中心同步 (routes under SYNC_BASE, ADR 0010). `receiverFor` reaches a center's receiving file service
 * (in-process for the centers this gateway serves, else over HTTP); `grants` is what the file services ask.
 * `start` resumes the jobs a stopped gateway left running, then keeps taking over those whose replica stopped.
 */
export function createSyncModule(
  deps: Pick<AppContext, 'db' | 'access' | 'centers' | 'clock' | 'notify' | 'bus' | 'clusterAccounts' | 'log'>,
  receiverFor: (centerId: string) => SyncReceiver,
  requireOpen: (centerId: string) => Promise<void>,
  opts?: SyncRunnerOptions,
) {
  const repo = new SyncRepository(deps.db);
  const runner = new SyncRunner(
    repo,
    new LeaseRepository(deps.db),
    receiverFor,
    deps.clock,
    {
      changed: (row) => deps.bus.publish(row.owner_id, { businessType: WS_SYNC_CHANGED, data: toSyncJob(row, deps.centers) }),
      finished: async (row) => {
        const job = toSyncJob(row, deps.centers);
        // A version copied for a task is told through the task itself (its state and reason), unless it failed.
        if (job.state === 'CANCELLED' || (job.kind === 'version' && job.state === 'SUCCEEDED')) return;
        const what = job.kind === 'version' ? `${job.label}（${job.sourceCenterName} → ${job.targetCenterName}）` : `${job.sourceCenterName}：${job.sourcePath} → ${job.targetCenterName}：${job.targetPath}`;
        await deps.notify(row.owner_id, {
          type: 'task',
          title: job.state === 'SUCCEEDED' ? '跨中心同步已完成' : '跨中心同步失败',
          content: job.state === 'SUCCEEDED' ? `${what}（${job.filesTotal} 个文件，${formatFileSize(job.bytesTotal)}）已同步完成，校验一致。` : `${what}：${job.message}`,
          businessType: 'sync',
          businessId: job.id,
        });
      },
    },
    deps.log,
    opts,
  );
  const service = new SyncJobService(repo, deps.access, requireOpen, runner, deps.centers, deps.clusterAccounts, deps.clock);
  return {
    service,
    runner,
    grants: (grant: string | undefined, centerId: string) => service.resolveGrant(grant, centerId),
    mount: { name: 'sync', routes: [{ prefix: SYNC_BASE, plugin: syncRoutes(service) }], start: () => runner.resumeAll(), close: () => runner.close() } satisfies ModuleMount,
  };
}
