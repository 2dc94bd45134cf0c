import type { AppContext } from '../../context';
import type { Executor } from '../../executors/executor';
import { ResourceRepository } from './resource.repository';
import { resourceRoutes } from './resource.routes';
import { ResourceService } from './resource.service';

/**
 * 资源 (routes under RESOURCE_BASE). Samples come from the task poller's leader (app.ts hands
 * `service.sample` to the task module's `afterPoll`), so there is one scheduler query per center per
 * sample interval across all replicas and consoles.
 */
export function createResourceModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'config'>, executors: ReadonlyMap<string, Executor>) {
  const service = new ResourceService(new ResourceRepository(deps.db), deps.centers, executors, deps.clock, {
    sampleIntervalMs: deps.config.compute?.resourceSampleMs ?? 30_000,
  });
  return { service, routes: resourceRoutes(service) };
}
