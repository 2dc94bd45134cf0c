import { TRAINING_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { AccessLogService } from '../access-log/access-log.service';
import type { CenterStates } from '../center/center.service';
import type { IdeOrigin } from './ide-origin';
import { IDE_ROUTE_PREFIX, IdeProxy, type IdeTasks } from './ide-proxy';
import { IdeTicketRepository } from './ide-ticket.repository';
import type { ImageCatalogue } from './image-catalogue';
import { Placer, type PlacementTasks } from './placement';
import { trainingRoutes, type TrainingRouteTasks } from './training.routes';
import { TrainingService, type MountResolver, type PrivateImages, type TrainingTasks } from './training.service';

/** What the training module uses of the task module: the narrow ports of its parts, each declared where it is used. */
export interface TrainingModuleTasks {
  service: TrainingRouteTasks['service'] & TrainingTasks;
  queries: TrainingRouteTasks['queries'] & PlacementTasks & IdeTasks;
}

/** AI计算 › 训练任务 (routes under TRAINING_BASE), on the shared task engine. */
export function createTrainingModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'config' | 'sessions'>,
  tasks: TrainingModuleTasks,
  images: ImageCatalogue,
  privateImages: PrivateImages,
  access: AccessLogService,
  mounts: MountResolver,
  ideOrigin: IdeOrigin,
  centerStates: CenterStates,
) {
  const service = new TrainingService(tasks.service, images, privateImages, new Placer(tasks.queries, centerStates), mounts);
  const ide = new IdeProxy(
    tasks.queries,
    access,
    async (sid) => !(await deps.sessions.invalid([sid])).has(sid),
    new IdeTicketRepository(deps.db),
    ideOrigin,
    () => deps.config.publicUrl,
    deps.config.dataDir,
    deps.clock,
  );
  const mount: ModuleMount = {
    name: 'training',
    routes: [
      { prefix: TRAINING_BASE, plugin: trainingRoutes(service, tasks, ide) },
      // Requests for an IDE's own host, rewritten under IDE_ROUTE_PREFIX by app.ts.
      { prefix: IDE_ROUTE_PREFIX, plugin: ide.routes() },
    ],
  };
  return { service, ide, mount };
}
