import { ORDER_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import { LeaseRepository } from '../../db/lease.repository';
import type { ModuleMount } from '../module-mount';
import { AlipayChannel } from './alipay';
import { AlipayReconciler, type ReconcilerOptions } from './alipay-reconciler';
import { CompPowerRepository } from './comp-power.repository';
import { CompPowerService } from './comp-power.service';
import { OrderRepository } from './order.repository';
import { orderRoutes } from './order.routes';
import { OrderService } from './order.service';

/**
 * Orders and compute power (ADR 0012): the caller's remaining 卡时, the packages on sale, orders and their
 * payment (offline transfer, Alipay when configured — with the reconciliation of lost notifies, whose leader
 * loop starts with the app); routes under ORDER_BASE. Who confirms offline transfers (operators) is the
 * access module's decision, the confirm route requires the role. Buyers' names come from the user module's
 * directory.
 */
export async function createOrderModule(
  deps: Pick<AppContext, 'db' | 'centers' | 'offlinePayment' | 'clock' | 'config' | 'notify' | 'bus' | 'log' | 'access' | 'userDirectory'>,
  opts: { reconciler?: ReconcilerOptions } = {},
) {
  const compPowers = new CompPowerService(new CompPowerRepository(deps.db), deps.centers, deps.access, deps.clock);
  const repo = new OrderRepository(deps.db);
  const alipay = deps.config.alipay ? await AlipayChannel.create(deps.config.alipay) : undefined;
  // The reconciler credits through the service (the one exactly-once credit); the service asks it on reads.
  const reconciler = alipay
    ? new AlipayReconciler(repo, alipay, (id, tradeNo) => orders.creditAlipay(id, tradeNo), new LeaseRepository(deps.db), deps.clock, deps.log, opts.reconciler)
    : undefined;
  const orders: OrderService = new OrderService(
    repo,
    deps.centers,
    { offline: deps.offlinePayment, alipay, reconciler },
    deps.access,
    deps.clock,
    deps.notify,
    deps.bus,
    deps.log,
    deps.userDirectory,
  );
  const mount: ModuleMount = {
    name: 'order',
    routes: [{ prefix: ORDER_BASE, plugin: orderRoutes(compPowers, orders) }],
    start: () => reconciler?.start(),
    close: () => reconciler?.stop(),
  };
  return { compPowers, orders, reconciler, mount };
}
