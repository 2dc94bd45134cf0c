import { ADMIN_BASE, WS_TASK_STATE_CHANGED } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { Executor } from '../../executors/executor';
import { LeaseRepository } from '../../db/lease.repository';
import { JobSpecs, type ImageLookup } from './job-spec';
import { TaskFiles } from './task-files';
import { TaskAdminService } from './task-admin.service';
import { taskAdminRoutes } from './task-admin.routes';
import { TaskPoller } from './task-poller';
import { TaskQueries } from './task-queries';
import { TaskRepository } from './task.repository';
import type { TaskCompute, TaskMeterSource } from './task-compute';
import { TaskService, type PollRound } from './task.service';
import { TaskTransitions } from './task-transitions';
import { TaskUsageRepository } from './task-usage.repository';

/**
 * The task engine both families (training, slurm) build on: one executor per center, the state engine and
 * its poller. The owners' calls are not its own: each family registers the shared task calls (task.routes.ts)
 * under its base; its one route plugin is the operators' stop under ADMIN_BASE (task-admin.routes.ts).
 * `executors` comes from app.ts (executors/create-executor.ts) so tests can hand in their own configuration
 * of the real executors. `compute` is the order module's side of compute power (the submit gate, 已消耗, the
 * final draw before a delete); `meterSource` is what this module offers metering in return.
 *
 * Its parts, each given to other modules only as the narrow port they declare (a `Pick` of one part):
 * `service` — the state engine (submit, stop, delete, release a task waiting for data; the poll), over
 * `TaskTransitions` (how a task moves) and `JobSpecs` (the job an executor runs); `queries` — the access and
 * query part (a caller's tasks through the access module, and what other modules ask); `files` — the
 * log/metrics reader, the only part that touches a center's storage (through ctx.storage, ADR 0016).
 */
export function createTaskModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'centers' | 'clusterAccounts' | 'notify' | 'bus' | 'log' | 'config' | 'access' | 'storage' | 'audit' | 'userDirectory'>,
  executors: ReadonlyMap<string, Executor>,
  images: ImageLookup,
  compute: TaskCompute,
  centerGate: { requireOpen(centerId: string): Promise<void> },
) {
  const c = deps.config.compute ?? {};
  const repo = new TaskRepository(deps.db);
  const centers = new Map(deps.centers.map((x) => [x.id, x]));
  const jobs = new JobSpecs(centers, images);
  const usage = new TaskUsageRepository(deps.db);
  const files = new TaskFiles(deps.storage);
  const queries = new TaskQueries(repo, executors, centers, deps.clusterAccounts, files, images, deps.access, compute);
  const transitions = new TaskTransitions(repo, executors, centers, jobs, files, deps.clock, deps.notify, deps.bus, deps.log, {
    submitRetryMs: c.submitRetryMs,
    expiryWarnMs: c.expiryWarnMs,
  });
  const service = new TaskService(repo, transitions, jobs, queries, files, deps.clusterAccounts, deps.clock, deps.log, compute, centerGate);
  const admin = new TaskAdminService({ repo, queries, transitions, centers, audit: deps.audit, users: deps.userDirectory, notify: deps.notify, log: deps.log });
  // Work other modules do per center right after its poll, on the replica leading it (resource samples); they
  // get what the poll read that is theirs (the tasks waiting for data), not a query of their own per tick.
  const afterPoll: ((centerId: string, round: PollRound) => Promise<void>)[] = [];
  const poller = new TaskPoller(
    deps.centers.map((x) => x.id),
    new LeaseRepository(deps.db),
    async (id) => {
      const round = await service.poll(id);
      for (const f of afterPoll) await f(id, round);
      return round.watching;
    },
    deps.clock,
    deps.log,
    { intervalMs: c.pollIntervalMs, idleMs: c.idlePollMs, leaseMs: c.leaseMs, holder: c.holder },
  );
  // A task's state change (a submit here, or on another replica through the bus) wakes an idle center's poll.
  let unsubscribe = () => {};
  return {
    /** The state engine (families submit through it; the demo seed; tests drive `poll` and read `specOf`). */
    service,
    /** The access/query part: a caller's tasks, and what other modules ask about tasks. */
    queries,
    /** The log/metrics reader. */
    files,
    repository: repo,
    /** The read port other modules get for a user's use of compute (the resource dashboard). */
    usage,
    /** What metering reads of tasks and asks of the engine (ADR 0015). */
    meterSource: {
      running: (centerId) => usage.meterRunning(centerId),
      endedSince: (centerId, since) => usage.meterEndedSince(centerId, since),
      byIds: (ids) => usage.meterByIds(ids),
      tagged: (ids) => usage.tagged(ids),
      stopUnderpowered: (taskId, reason) => service.stopUnderpowered(taskId, reason),
    } satisfies TaskMeterSource,
    poller,
    executors,
    /** Runs `f` after every poll of a center by this replica while it leads the center. */
    afterPoll: (f: (centerId: string, round: PollRound) => Promise<void>) => afterPoll.push(f),
    /** 运营管理: an operator stops any user's task (audited, the owner told). */
    admin,
    /**
     * The operators' stop under ADMIN_BASE (the owners' calls are each family's). Polling starts once the app
     * is ready and stops (handing the centers over) before the database closes.
     */
    mount: {
      name: 'task',
      routes: [{ prefix: ADMIN_BASE, plugin: taskAdminRoutes(admin) }],
      start: () => {
        unsubscribe = deps.bus.subscribe((_userId, event) => {
          if (event.businessType === WS_TASK_STATE_CHANGED) poller.wake();
        });
        poller.start();
      },
      close: async () => {
        unsubscribe();
        await poller.stop();
        await Promise.all([...executors.values()].map((e) => e.close()));
      },
    } satisfies ModuleMount,
  };
}
