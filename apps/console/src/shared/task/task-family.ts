import type { Task } from '@suanli/contracts';
import type { QueryKey } from '@tanstack/react-query';
import type { TaskCalls } from './task-calls';

/**
 * A family of tasks as the task kit sees it (训练任务, 科学计算 › 任务管理): the pages of every family list,
 * show, stop, resubmit and delete tasks the same way, and differ in these facts and in what they add.
 */
export interface TaskFamily {
  /** The shared task calls under the family's base. */
  calls: TaskCalls;
  /** Its query keys: everything under `root`, which the socket's `task.state.changed` refreshes. */
  keys: { root: QueryKey; list: (query: object) => QueryKey; detail: (id: string) => QueryKey };
  /** The first word of its testids (docs/console-testids.md): `<testId>-row`, `<testId>-detail-stop`… */
  testId: string;
  /** What it calls its task types (单机训练…, 模板任务…). */
  typeLabels: Record<string, string>;
  detailPath: (task: Pick<Task, 'type' | 'id'>) => string;
}
