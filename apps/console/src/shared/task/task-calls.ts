import type { Page, Task, TaskDetail, TaskLog, TaskLogQuery, TaskMetrics, TaskMetricsQuery, TaskPageQuery, TaskResubmit } from '@suanli/contracts';
import { saveBlob } from '../http/browser-download';
import type { RequestClient } from '../http/client';

/**
 * The task calls every family shares (the server's `taskRoutes`), under a family's base: training
 * (TRAINING_BASE) or Slurm (SLURM_BASE). Reads that follow a running task pass `silent`: the panel shows a
 * failure in place instead of toasting every 2 s.
 */
export function taskCalls(client: RequestClient, base: string) {
  const taskUrl = (id: string) => `${base}/tasks/${encodeURIComponent(id)}`;
  return {
    page: (query: TaskPageQuery, opts: { silent?: boolean } = {}) => client.post<Page<Task>>(`${base}/tasks/action/page`, { data: query, silent: opts.silent }),
    get: (id: string, opts: { silent?: boolean } = {}) => client.get<TaskDetail>(taskUrl(id), { silent: opts.silent }),
    stop: (id: string) => client.post<Task>(`${taskUrl(id)}/stop`, { data: {} }),
    /** A new task with the same parameters on the same center; the same `clientRequestId` again answers the task it made. */
    resubmit: (id: string, clientRequestId?: string) => client.post<Task>(`${taskUrl(id)}/resubmit`, { data: { clientRequestId } satisfies TaskResubmit }),
    remove: (id: string) => client.delete<null>(taskUrl(id)),
    readLog: (id: string, query: TaskLogQuery, opts: { silent?: boolean } = {}) =>
      client.get<TaskLog>(`${taskUrl(id)}/log`, { params: { ...query }, silent: opts.silent }),
    readMetrics: (id: string, query: TaskMetricsQuery, opts: { silent?: boolean } = {}) =>
      client.get<TaskMetrics>(`${taskUrl(id)}/metrics`, { params: { ...query }, silent: opts.silent }),
    /**
     * The whole log as a file. The route needs the `token` header, which a plain link cannot send, so the
     * bytes come through the pipeline (same token, same error handling) and are saved from memory.
     */
    downloadLog: async (id: string, fileName: string) => {
      const blob = await client.get<Blob>(`${taskUrl(id)}/log/download`, { responseType: 'blob' });
      saveBlob(blob instanceof Blob ? blob : new Blob([]), fileName);
    },
  };
}

export type TaskCalls = ReturnType<typeof taskCalls>;
