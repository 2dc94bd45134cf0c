import path from 'node:path';
import { SLURM_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { TaskCalls } from '../task/task.routes';
import { Placer, type PlacementTasks } from '../training/placement';
import { loadPlatformTemplates } from './platform-templates';
import { SlurmTemplateRepository } from './slurm-template.repository';
import { SlurmTemplateService } from './slurm-template.service';
import { slurmRoutes } from './slurm.routes';
import { SlurmService, type SlurmTasks } from './slurm.service';
import type { CenterStates } from '../center/center.service';

/** What the Slurm module uses of the task module: the narrow ports of its parts, each declared where it is used. */
export interface SlurmModuleTasks {
  service: TaskCalls['service'] & SlurmTasks;
  queries: TaskCalls['queries'] & PlacementTasks;
}

/**
 * 科学计算 (routes under SLURM_BASE) on the shared task engine. Platform templates are the YAML files of
 * `slurm-templates/` beside the centers file (`config/slurm-templates/`), read once here.
 */
export function createSlurmModule(deps: Pick<AppContext, 'db' | 'access' | 'clock' | 'config'>, tasks: SlurmModuleTasks, centerStates: CenterStates) {
  const platform = loadPlatformTemplates(path.join(path.dirname(deps.config.centersFile), 'slurm-templates'));
  const templates = new SlurmTemplateService(new SlurmTemplateRepository(deps.db), deps.access, platform, tasks.service, deps.clock);
  const service = new SlurmService(tasks.service, templates, new Placer(tasks.queries, centerStates));
  const mount: ModuleMount = { name: 'slurm', routes: [{ prefix: SLURM_BASE, plugin: slurmRoutes(service, templates, tasks) }] };
  return { service, templates, mount };
}
