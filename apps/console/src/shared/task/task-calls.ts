import type { DiagnosisChange, TaskApi, TaskLogQuery, TaskMetricsQuery, TaskPageQuery } from '@suanli/contracts';
import { call } from '../../app/request';
import { saveBlob } from '../http/browser-download';

/**
 * The task calls every family shares (the server's `taskRoutes`), through a family's descriptors: training
 * (TrainingTaskApi) or Slurm (SlurmTaskApi). Reads that follow a running task pass `silent`: the panel shows
 * a failure in place instead of toasting every 2 s.
 */
export function taskCalls(api: TaskApi) {
  return {
    page: (query: TaskPageQuery, opts: { silent?: boolean } = {}) => call(api.page, { body: query }, { silent: opts.silent }),
    get: (id: string, opts: { silent?: boolean } = {}) => call(api.detail, { params: { id } }, { silent: opts.silent }),
    stop: (id: string) => call(api.stop, { params: { id } }),
    /**
     * A new task with the same parameters on the same center; the same `clientRequestId` again answers the task
     * it made. `change`: 按建议重新提交, the diagnosis's change applied to the parameters.
     */
    resubmit: (id: string, clientRequestId?: string, change?: DiagnosisChange) =>
      call(api.resubmit, { params: { id }, body: change ? { clientRequestId, change } : { clientRequestId } }),
    remove: (id: string) => call(api.remove, { params: { id } }),
    readLog: (id: string, query: TaskLogQuery, opts: { silent?: boolean } = {}) => call(api.log, { params: { id }, query }, { silent: opts.silent }),
    readMetrics: (id: string, query: TaskMetricsQuery, opts: { silent?: boolean } = {}) =>
      call(api.metrics, { params: { id }, query }, { silent: opts.silent }),
    /** 任务对比: 2–5 tasks of one type with their curves; the page shows a refusal (2014, 2015, 1205) in place. */
    compare: (ids: string[]) => call(api.compare, { body: { ids } }, { silent: true }),
    /**
     * The whole log as a file. The route needs the `token` header, which a plain link cannot send, so the
     * bytes come through the pipeline (same token, same error handling) and are saved from memory.
     */
    downloadLog: async (id: string, fileName: string) => {
      const blob = await call(api.downloadLog, { params: { id } });
      saveBlob(blob instanceof Blob ? blob : new Blob([]), fileName);
    },
  };
}

export type TaskCalls = ReturnType<typeof taskCalls>;
