import { FOUNDATION_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { foundationRoutes } from './foundation.routes';
import { FoundationService, type CenterStatuses } from './foundation.service';

/** Sub-centers (from the centers file, their status from the center module) and dictionaries; routes under FOUNDATION_BASE. No SQL. */
export function createFoundationModule(deps: Pick<AppContext, 'centers'>, statuses: CenterStatuses) {
  const service = new FoundationService(deps.centers, statuses);
  const mount: ModuleMount = { name: 'foundation', routes: [{ prefix: FOUNDATION_BASE, plugin: foundationRoutes(service) }] };
  return { service, mount };
}
