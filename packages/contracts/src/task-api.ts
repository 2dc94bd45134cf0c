import { Type, type Static } from '@sinclair/typebox';
import { FileBytes, Id, IdParams, Null, Page } from './common';
import { route, type SchemasOf } from './route';
import {
  SLURM_BASE,
  Task,
  TaskDetail,
  TaskLog,
  TaskLogQuery,
  MetricPoint,
  TaskMetrics,
  TaskMetricsQuery,
  TaskPageQuery,
  TaskResubmit,
  TRAINING_BASE,
} from './task';

/**
 * 任务对比 (issue 23 item 4): two to TASK_COMPARE_MAX of the caller's tasks of one family and one type, by id.
 * The array bound is only a guard on the body: more than TASK_COMPARE_MAX distinct ids answer 2014, so the
 * user reads why, not a field error.
 */
export const TASK_COMPARE_MAX = 5;
export const TaskCompareQuery = Type.Object({ ids: Type.Array(Id, { minItems: 2, maxItems: 50 }) });
export type TaskCompareQuery = Static<typeof TaskCompareQuery>;
/** One compared run: the task as lists show it and its training curve (the first METRICS_MAX_POINTS points). */
export const ComparedTask = Type.Composite([
  Task,
  Type.Object({
    metrics: Type.Array(MetricPoint),
    /** The curve has more points than were sent. */
    metricsTruncated: Type.Boolean(),
  }),
]);
export type ComparedTask = Static<typeof ComparedTask>;
/** The runs in the order asked (duplicates dropped). */
export const TaskComparison = Type.Object({ tasks: Type.Array(ComparedTask) });
export type TaskComparison = Static<typeof TaskComparison>;

export const TaskPage = Page(Task);
export type TaskPage = Static<typeof TaskPage>;
/** The body of 重新提交 is optional (older clients send none, which Fastify validates as null). */
export const TaskResubmitBody = Type.Union([TaskResubmit, Type.Null()]);
export type TaskResubmitBody = Static<typeof TaskResubmitBody>;

/**
 * The calls every task family shares, under a family's base (training: TRAINING_BASE, Slurm: SLURM_BASE);
 * under a base they only see that family's tasks. `resubmit` is the family's own on the server (it re-runs the
 * family's form rules).
 */
/* @__NO_SIDE_EFFECTS__ */
function taskApi(base: string) {
  return {
    page: route<{ body: typeof TaskPageQuery; response: typeof TaskPage }>('POST', base, '/tasks/action/page'),
    detail: route<{ params: typeof IdParams; response: typeof TaskDetail }>('GET', base, '/tasks/:id'),
    stop: route<{ params: typeof IdParams; response: typeof Task }>('POST', base, '/tasks/:id/stop'),
    resubmit: route<{ params: typeof IdParams; body: typeof TaskResubmitBody; response: typeof Task }>('POST', base, '/tasks/:id/resubmit'),
    remove: route<{ params: typeof IdParams; response: typeof Null }>('DELETE', base, '/tasks/:id'),
    log: route<{ params: typeof IdParams; query: typeof TaskLogQuery; response: typeof TaskLog }>('GET', base, '/tasks/:id/log'),
    downloadLog: route<{ params: typeof IdParams; response: typeof FileBytes }>('GET', base, '/tasks/:id/log/download', { bytes: true }),
    metrics: route<{ params: typeof IdParams; query: typeof TaskMetricsQuery; response: typeof TaskMetrics }>('GET', base, '/tasks/:id/metrics'),
    compare: route<{ body: typeof TaskCompareQuery; response: typeof TaskComparison }>('POST', base, '/tasks/action/compare'),
  };
}

/** The shared task calls of either family: the console's task pages take one of these. */
export type TaskApi = ReturnType<typeof taskApi>;
export const TrainingTaskApi: TaskApi = taskApi(TRAINING_BASE);
export const SlurmTaskApi: TaskApi = taskApi(SLURM_BASE);

/** The schemas of a family's task calls; `what` names its tasks in the summaries (训练任务, Slurm 任务). */
export function taskApiSchemas(what: string): SchemasOf<TaskApi> {
  return {
    page: { summary: `${what}列表（分页，按类型、状态、名称筛选）`, body: TaskPageQuery, response: TaskPage },
    detail: { summary: `${what}详情（含状态变化时间线）`, params: IdParams, response: TaskDetail },
    stop: { summary: `停止${what}`, params: IdParams, response: Task },
    resubmit: { summary: `以相同参数重新提交${what}（同一 clientRequestId 一天内只提交一次）`, params: IdParams, body: TaskResubmitBody, response: Task },
    remove: { summary: `删除已结束的${what}`, params: IdParams, response: Null },
    log: { summary: `${what}日志（从 offset 起的一段，运行中可继续追读）`, params: IdParams, querystring: TaskLogQuery, response: TaskLog },
    downloadLog: { summary: `下载${what}日志`, params: IdParams, response: FileBytes },
    metrics: { summary: `${what}训练曲线数据（$SUANLI_METRICS_FILE 中的 JSON 行）`, params: IdParams, querystring: TaskMetricsQuery, response: TaskMetrics },
    compare: { summary: `对比${what}（2–5 个同类型任务的参数与训练曲线）`, body: TaskCompareQuery, response: TaskComparison },
  };
}
