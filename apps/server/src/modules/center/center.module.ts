import { ADMIN_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { CenterRepository } from './center.repository';
import { centerRoutes } from './center.routes';
import { CenterService } from './center.service';

/**
 * 分中心 status and packages (issue 20, migration 0029): the centers file's values copied into the database
 * on the first start (here, before the app serves), operators' changes under ADMIN_BASE, and the ports the
 * foundation, order and task modules read. Built before them.
 */
export async function createCenterModule(deps: Pick<AppContext, 'db' | 'centers' | 'access' | 'audit' | 'bus' | 'clock'>) {
  const service = new CenterService(new CenterRepository(deps.db), deps.centers, deps.access, deps.audit, deps.bus, deps.clock);
  await service.seed();
  const mount: ModuleMount = { name: 'center', routes: [{ prefix: ADMIN_BASE, plugin: centerRoutes(service) }] };
  return { service, mount };
}
