import { WORKORDER_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { TaskQueries } from '../task/task-queries';
import { WorkOrderRepository } from './workorder.repository';
import { workorderRoutes } from './workorder.routes';
import { WorkOrderService } from './workorder.service';

/**
 * 工单 (routes under WORKORDER_BASE). `tasks` names the owner's tasks a work order links to; who sees and
 * answers which work order is the access module's decision (owners theirs, operators everyone's).
 */
export function createWorkorderModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'notify' | 'notifyEach' | 'bus' | 'access' | 'userDirectory' | 'audit'>,
  tasks: Pick<TaskQueries, 'namesOf'>,
) {
  const service = new WorkOrderService(new WorkOrderRepository(deps.db), tasks, deps.access, deps.userDirectory, deps.clock, deps.notify, deps.notifyEach, deps.bus, deps.audit);
  const mount: ModuleMount = { name: 'workorder', routes: [{ prefix: WORKORDER_BASE, plugin: workorderRoutes(service) }] };
  return { service, mount };
}
