import { ORDER_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { AlipayChannel } from './alipay';
import { CompPowerRepository } from './comp-power.repository';
import { CompPowerService } from './comp-power.service';
import { OrderRepository } from './order.repository';
import { orderRoutes } from './order.routes';
import { OrderService } from './order.service';

/**
 * Orders and compute power (ADR 0012): the caller's remaining 卡时, the packages on sale, orders and their
 * payment (offline transfer, Alipay when configured); routes under ORDER_BASE. Who confirms offline transfers
 * (operators) is the access module's decision, the confirm route requires the role.
 */
export async function createOrderModule(
  deps: Pick<AppContext, 'db' | 'centers' | 'offlinePayment' | 'clock' | 'config' | 'notify' | 'bus' | 'log' | 'access'>,
) {
  const compPowers = new CompPowerService(new CompPowerRepository(deps.db), deps.centers, deps.access, deps.clock);
  const payment = {
    offline: deps.offlinePayment,
    alipay: deps.config.alipay ? await AlipayChannel.create(deps.config.alipay) : undefined,
  };
  const orders = new OrderService(new OrderRepository(deps.db), deps.centers, payment, deps.access, deps.clock, deps.notify, deps.bus, deps.log);
  const mount: ModuleMount = { name: 'order', routes: [{ prefix: ORDER_BASE, plugin: orderRoutes(compPowers, orders) }] };
  return { compPowers, orders, mount };
}
