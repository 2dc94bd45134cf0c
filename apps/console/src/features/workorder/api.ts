/** 工单 calls through the route descriptors (WorkOrderApi); the linked tasks through the task calls. */
import { SlurmTaskApi, TrainingTaskApi, WorkOrderApi, type Task, type TaskDetail, type WorkOrderCreate, type WorkOrderPageQuery, type WorkOrderReplyCreate } from '@suanli/contracts';
import { call } from '../../app/request';
import { taskCalls } from '../../shared/task/task-calls';

export const pageWorkOrders = (query: WorkOrderPageQuery) => call(WorkOrderApi.page, { body: query });
export const createWorkOrder = (body: WorkOrderCreate) => call(WorkOrderApi.create, { body });
export const getWorkOrder = (id: string) => call(WorkOrderApi.detail, { params: { id } });
export const replyWorkOrder = (id: string, body: WorkOrderReplyCreate) => call(WorkOrderApi.reply, { params: { id }, body });
export const resolveWorkOrder = (id: string) => call(WorkOrderApi.resolve, { params: { id } }, { data: {} });
export const closeWorkOrder = (id: string) => call(WorkOrderApi.close, { params: { id } }, { data: {} });

export function uploadAttachment(file: File) {
  const form = new FormData();
  form.append('file', file);
  return call(WorkOrderApi.upload, undefined, { data: form });
}

/**
 * A screenshot's bytes. The route needs the `token` header, which an <img> cannot send, so the bytes come
 * through the pipeline and are shown from an object URL.
 */
export async function fetchAttachment(id: string): Promise<Blob> {
  const blob = await call(WorkOrderApi.attachment, { params: { id } }, { responseType: 'blob', silent: true });
  return blob instanceof Blob ? blob : new Blob([]);
}

const families = [TrainingTaskApi, SlurmTaskApi].map((api) => taskCalls(api));

/** The caller's latest tasks of both families, for the form's 关联任务. */
export async function recentTasks(): Promise<Task[]> {
  const query = { pageNum: 1, pageSize: 50 };
  const [training, slurm] = await Promise.all(families.map((f) => f.page(query, { silent: true }).catch(() => ({ list: [] as Task[], total: 0 }))));
  return [...training.list, ...slurm.list].sort((a, b) => b.createTime - a.createTime);
}

/**
 * The linked task of a work order, to link to its detail page (the link names no family): asked of both
 * families quietly; null when neither has it (deleted since, or not the viewer's).
 */
export async function findTask(id: string): Promise<TaskDetail | null> {
  for (const f of families) {
    const task: TaskDetail | null = await f.get(id, { silent: true }).catch(() => null);
    if (task) return task;
  }
  return null;
}
