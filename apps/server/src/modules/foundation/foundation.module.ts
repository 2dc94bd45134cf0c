import type { AppContext } from '../../context';
import { foundationRoutes } from './foundation.routes';
import { FoundationService } from './foundation.service';

/** Sub-centers (from the centers file) and dictionaries; routes under FOUNDATION_BASE. No SQL yet. */
export function createFoundationModule(deps: Pick<AppContext, 'centers'>) {
  const service = new FoundationService(deps.centers);
  return { service, routes: foundationRoutes(service) };
}
