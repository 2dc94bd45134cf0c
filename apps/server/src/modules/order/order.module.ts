import { ORDER_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import { LeaseRepository } from '../../db/lease.repository';
import type { ModuleMount } from '../module-mount';
import type { TaskMeterSource } from '../task/task-compute';
import type { Executor } from '../../executors/executor';
import { AlipayChannel } from './alipay';
import { BalanceLimitRepository } from './balance-limit.repository';
import { BalanceLimits } from './balance-limit.service';
import { AlipayReconciler, type ReconcilerOptions } from './alipay-reconciler';
import { CompPowerRepository } from './comp-power.repository';
import { CompPowerService } from './comp-power.service';
import { GrantService } from './grant.service';
import { MeteringRepository } from './metering.repository';
import { MeteringRunner } from './metering.runner';
import { MeteringService } from './metering.service';
import { OrderRepository } from './order.repository';
import { orderRoutes } from './order.routes';
import { OrderService, type OrderCatalogue } from './order.service';
import type { TeamPayers } from '../team/team.service';
import { recordRoutes } from './records.routes';
import { OutsideJobRepository } from './outside-job.repository';
import { OutsideJobService } from './outside-job.service';
import { outsideJobRoutes } from './outside-job.routes';
import { RecordService } from './record.service';

/** Default metering period (ADR 0015): draws at least this often, and the gate's first period. */
export const METERING_PERIOD_MS = 60_000;

/**
 * Orders and compute power (ADR 0012, 0015): the caller's remaining 卡时, the packages on sale, orders and
 * their payment (offline transfer, Alipay when configured — with the reconciliation of lost notifies, whose
 * leader loop starts with the app), grants, the records of 费用明细, and metering — running tasks drawing
 * from the buckets, the submit gate. Routes under ORDER_BASE. Built before the task module, which gets
 * `metering` as its TaskCompute; the task module's meter source comes back through `runMetering`, whose
 * runner the app hangs after each poll. Buyers' names come from the user module's directory.
 */
export async function createOrderModule(
  deps: Pick<AppContext, 'db' | 'engine' | 'centers' | 'offlinePayment' | 'clock' | 'config' | 'notify' | 'bus' | 'log' | 'access' | 'userDirectory' | 'audit' | 'clusterAccounts'>,
  /** The center module: the packages on sale, and whether a center takes orders (运营管理 › 分中心). */
  catalogue: OrderCatalogue,
  /** Teams as payers and buyers (ADR 0017; the team module is built before this one). */
  teams: TeamPayers,
  /**
   * Each center's executor (issue 25): the balance limits are set on the scheduler through it, and outside
   * jobs are read from its accounting and cancelled through it.
   */
  executors: ReadonlyMap<string, Executor>,
  opts: { reconciler?: ReconcilerOptions } = {},
) {
  const m = deps.config.metering ?? {};
  const compPowerRepo = new CompPowerRepository(deps.db);
  const limits = new BalanceLimits(new BalanceLimitRepository(deps.db), deps.centers, executors, deps.clusterAccounts, deps.clock, deps.log, teams, (userId) =>
    deps.bus.publish(userId, { businessType: 'comp-power.changed', data: {} }),
  );
  const grants = new GrantService(compPowerRepo, deps.centers, deps.userDirectory, deps.access, deps.clock, deps.notify, deps.bus, deps.log, deps.audit, m.welcomeGrant, teams, limits);
  const welcome = (userId: string) => grants.welcome(userId);
  const compPowers = new CompPowerService(compPowerRepo, deps.centers, deps.access, deps.clock, welcome, teams, (userId) => limits.heldOf(userId));
  const orderRepo = new OrderRepository(deps.db);
  const alipay = deps.config.alipay ? await AlipayChannel.create(deps.config.alipay) : undefined;
  // The reconciler credits through the service (the one exactly-once credit); the service asks it on reads.
  const reconciler = alipay
    ? new AlipayReconciler(orderRepo, alipay, (id, tradeNo) => orders.creditAlipay(id, tradeNo), new LeaseRepository(deps.db), deps.clock, deps.log, opts.reconciler)
    : undefined;
  const orders: OrderService = new OrderService(
    orderRepo,
    deps.centers,
    { offline: deps.offlinePayment, alipay, reconciler },
    deps.access,
    deps.clock,
    deps.notify,
    deps.bus,
    deps.log,
    deps.userDirectory,
    catalogue,
    deps.audit,
    teams,
    limits,
  );
  const meteringRepo = new MeteringRepository(deps.db, deps.engine);
  const metering = new MeteringService(meteringRepo, deps.centers, deps.clock, deps.bus, deps.log, welcome, m.periodMs ?? METERING_PERIOD_MS, teams);
  const outside = new OutsideJobService(
    new OutsideJobRepository(deps.db),
    meteringRepo,
    deps.centers,
    executors,
    (centerId, accounts) => deps.clusterAccounts.ownersOf(centerId, accounts),
    deps.access,
    deps.clock,
    deps.log,
    (userId) => limits.heldOf(userId),
  );
  const records = new RecordService(orderRepo, meteringRepo, deps.centers, deps.clock, deps.access, teams);
  const mount: ModuleMount = {
    name: 'order',
    routes: [
      { prefix: ORDER_BASE, plugin: orderRoutes({ orders }) },
      { prefix: ORDER_BASE, plugin: recordRoutes({ compPowers, records, grants }) },
      { prefix: ORDER_BASE, plugin: outsideJobRoutes({ outside }) },
    ],
    start: () => reconciler?.start(),
    close: () => reconciler?.stop(),
  };
  return {
    compPowers,
    orders,
    grants,
    reconciler,
    /** Records' platform-wide per-day sums (平台概览). */
    records: records as Pick<RecordService, 'platformDays'>,
    /** The task engine's TaskCompute: the gate, 已消耗, the final draw of a deleted task. */
    metering,
    /** The runner over the task module's meter source (one per app; the app calls it after each poll). */
    runMetering: (tasks: TaskMeterSource) =>
      new MeteringRunner(
        metering,
        meteringRepo,
        tasks,
        deps.centers.map((c) => c.id),
        deps.clock,
        deps.log,
        limits,
        outside,
      ),
    /** The balance enforced by the scheduler (tests run a center's pass with `limits.center(id)`). */
    limits,
    /** 外部作业 and the reconciliation (issue 25). */
    outside,
    mount,
  };
}
