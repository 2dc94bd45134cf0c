import { RESOURCE_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { EVERYONE } from '../../realtime/bus';
import type { Executor } from '../../executors/executor';
import type { TaskUsageRepository } from '../task/task-usage.repository';
import { ResourceRepository } from './resource.repository';
import { resourceRoutes } from './resource.routes';
import { ResourceService } from './resource.service';
import type { CenterStates } from '../center/center.service';

/**
 * 资源 (routes under RESOURCE_BASE). Samples come from the task poller's leader (app.ts hands
 * `service.sample` to the task module's `afterPoll`), so there is one scheduler query per center per
 * sample interval across all replicas and consoles. Each stored sample is announced to every open socket
 * (`resource.sampled`), so the pages re-read at once.
 */
export function createResourceModule(
  deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'config' | 'bus'>,
  executors: ReadonlyMap<string, Executor>,
  usage: Pick<TaskUsageRepository, 'running' | 'ranSince'>,
  states: CenterStates,
) {
  const service = new ResourceService(
    new ResourceRepository(deps.db),
    usage,
    deps.centers,
    executors,
    deps.clock,
    { sampleIntervalMs: deps.config.compute?.resourceSampleMs ?? 30_000 },
    states,
    // The inventory is everyone's: a broadcast to the open sockets of every replica, not a message per user.
    (event) => deps.bus.publish(EVERYONE, event),
  );
  const mount: ModuleMount = { name: 'resource', routes: [{ prefix: RESOURCE_BASE, plugin: resourceRoutes(service) }] };
  return { service, mount };
}
