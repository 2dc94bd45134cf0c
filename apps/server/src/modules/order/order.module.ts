import type { AppContext } from '../../context';
import { CompPowerRepository } from './comp-power.repository';
import { CompPowerService } from './comp-power.service';
import { orderRoutes } from './order.routes';

/** Orders and compute power (so far: the caller's remaining 卡时); routes under ORDER_BASE. */
export function createOrderModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock'>) {
  const compPowers = new CompPowerService(new CompPowerRepository(deps.db), deps.centers, deps.clock);
  return { compPowers, routes: orderRoutes(compPowers) };
}
