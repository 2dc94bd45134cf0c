import { TRAINING_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { AccessLogService } from '../access-log/access-log.service';
import type { TaskService } from '../task/task.service';
import type { IdeOrigin } from './ide-origin';
import { IDE_ROUTE_PREFIX, IdeProxy } from './ide-proxy';
import { IdeTicketRepository } from './ide-ticket.repository';
import type { ImageCatalogue } from './image-catalogue';
import { Placer } from './placement';
import { trainingRoutes } from './training.routes';
import { TrainingService, type MountResolver, type PrivateImages } from './training.service';

/** AI计算 › 训练任务 (routes under TRAINING_BASE), on the shared task engine. */
export function createTrainingModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'config' | 'sessions'>,
  tasks: TaskService,
  images: ImageCatalogue,
  privateImages: PrivateImages,
  access: AccessLogService,
  mounts: MountResolver,
  ideOrigin: IdeOrigin,
) {
  const service = new TrainingService(tasks, images, privateImages, new Placer(tasks), mounts);
  const ide = new IdeProxy(
    tasks,
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
