import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { Executor } from '../../executors/executor';
import { LeaseRepository } from '../../db/lease.repository';
import { TaskPoller } from './task-poller';
import { TaskRepository } from './task.repository';
import { TaskUsageRepository } from './task-usage.repository';
import { TaskService, type ImageLookup } from './task.service';

/**
 * The task engine both families (training, slurm) build on: one executor per center, the state engine and
 * its poller. No routes of its own: each family registers the shared task calls (task.routes.ts) under
 * its base. `executors` comes from app.ts (executors/create-executor.ts) so tests can hand in their own
 * configuration of the real executors.
 */
export function createTaskModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'centers' | 'clusterAccounts' | 'notify' | 'bus' | 'log' | 'config' | 'storage'>,
  executors: ReadonlyMap<string, Executor>,
  images: ImageLookup,
) {
  const c = deps.config.compute ?? {};
  const repo = new TaskRepository(deps.db);
  const service = new TaskService(repo, executors, deps.centers, deps.clusterAccounts, deps.storage, images, deps.clock, deps.notify, deps.bus, deps.log, {
    submitRetryMs: c.submitRetryMs,
    expiryWarnMs: c.expiryWarnMs,
  });
  // Work other modules do per center right after its poll, on the replica leading it (resource samples).
  const afterPoll: ((centerId: string) => Promise<void>)[] = [];
  const poller = new TaskPoller(
    deps.centers.map((x) => x.id),
    new LeaseRepository(deps.db),
    async (id) => {
      await service.poll(id);
      for (const f of afterPoll) await f(id);
    },
    deps.clock,
    deps.log,
    { intervalMs: c.pollIntervalMs, leaseMs: c.leaseMs, holder: c.holder },
  );
  return {
    service,
    repository: repo,
    /** The read port other modules get for a user's use of compute (the resource dashboard). */
    usage: new TaskUsageRepository(deps.db),
    poller,
    executors,
    /** Runs `f` after every poll of a center by this replica while it leads the center. */
    afterPoll: (f: (centerId: string) => Promise<void>) => afterPoll.push(f),
    /** Polling starts once the app is ready and stops (handing the centers over) before the database closes. */
    mount: {
      name: 'task',
      start: () => poller.start(),
      close: async () => {
        await poller.stop();
        await Promise.all([...executors.values()].map((e) => e.close()));
      },
    } satisfies ModuleMount,
  };
}
