import type { AppContext } from '../../context';
import type { TaskService } from '../task/task.service';
import { WorkOrderRepository } from './workorder.repository';
import { workorderRoutes } from './workorder.routes';
import { WorkOrderService } from './workorder.service';

/**
 * 工单 (routes under WORKORDER_BASE). `tasks` names the owner's tasks a work order links to; `isOperator`
 * tells who answers everyone's work orders (app.ts builds it from the user module).
 */
export function createWorkorderModule(
  deps: Pick<AppContext, 'db' | 'clock' | 'notify' | 'bus'>,
  tasks: Pick<TaskService, 'namesOf'>,
  isOperator: (userId: string) => Promise<boolean>,
) {
  const service = new WorkOrderService(new WorkOrderRepository(deps.db), tasks, isOperator, deps.clock, deps.notify, deps.bus);
  return { service, routes: workorderRoutes(service) };
}
