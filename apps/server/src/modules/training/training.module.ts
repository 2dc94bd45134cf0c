import type { AppContext } from '../../context';
import { SessionStateRepository } from '../../realtime/session-state.repository';
import type { AccessLogService } from '../access-log/access-log.service';
import type { TaskService } from '../task/task.service';
import type { IdeOrigin } from './ide-origin';
import { IdeProxy } from './ide-proxy';
import { IdeTicketRepository } from './ide-ticket.repository';
import type { ImageCatalogue } from './image-catalogue';
import { Placer } from './placement';
import { trainingRoutes } from './training.routes';
import { TrainingService, type MountResolver, type PrivateImages } from './training.service';

/** AI计算 › 训练任务 (routes under TRAINING_BASE), on the shared task engine. */
export function createTrainingModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'config'>,
  tasks: TaskService,
  images: ImageCatalogue,
  privateImages: PrivateImages,
  access: AccessLogService,
  mounts: MountResolver,
  ideOrigin: IdeOrigin,
) {
  const service = new TrainingService(tasks, images, privateImages, new Placer(tasks), mounts);
  const sessions = new SessionStateRepository(deps.db);
  const ide = new IdeProxy(
    tasks,
    access,
    async (sid) => !(await sessions.invalid([sid], deps.clock())).has(sid),
    new IdeTicketRepository(deps.db),
    ideOrigin,
    () => deps.config.publicUrl,
    deps.config.dataDir,
    deps.clock,
  );
  // `proxyRoutes` go under IDE_ROUTE_PREFIX: requests for an IDE's own host, rewritten there by app.ts.
  return { service, ide, routes: trainingRoutes(service, tasks, ide), proxyRoutes: ide.routes() };
}
