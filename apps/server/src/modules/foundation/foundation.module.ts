import { FOUNDATION_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { foundationRoutes } from './foundation.routes';
import { FoundationService } from './foundation.service';

/** Sub-centers (from the centers file) and dictionaries; routes under FOUNDATION_BASE. No SQL yet. */
export function createFoundationModule(deps: Pick<AppContext, 'centers'>) {
  const service = new FoundationService(deps.centers);
  const mount: ModuleMount = { name: 'foundation', routes: [{ prefix: FOUNDATION_BASE, plugin: foundationRoutes(service) }] };
  return { service, mount };
}
