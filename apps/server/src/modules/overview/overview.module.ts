import { ADMIN_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { overviewRoutes } from './overview.routes';
import { OverviewService, type OverviewSources } from './overview.service';

/**
 * 运营管理 › 平台概览 (issue 20): one read composed from the ports of the user directory, the task module's
 * usage, the order module's records and the center module's states. Built after all of them; owns no table.
 */
export function createOverviewModule(deps: Pick<AppContext, 'centers' | 'access' | 'clock' | 'userDirectory'>, sources: Omit<OverviewSources, 'accounts'>) {
  const service = new OverviewService({ ...sources, accounts: (since) => deps.userDirectory.counts(since) }, deps.centers, deps.access, deps.clock);
  const mount: ModuleMount = { name: 'overview', routes: [{ prefix: ADMIN_BASE, plugin: overviewRoutes(service) }] };
  return { service, mount };
}
