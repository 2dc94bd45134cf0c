/** 工单 calls (base WORKORDER_BASE), one function per call, through the console's one request pipeline. */
import {
  SLURM_BASE,
  TRAINING_BASE,
  WORKORDER_BASE,
  type Page,
  type Task,
  type TaskDetail,
  type WorkOrderAttachment,
  type WorkOrderCreate,
  type WorkOrderDetail,
  type WorkOrderPage,
  type WorkOrderPageQuery,
  type WorkOrderReplyCreate,
} from '@suanli/contracts';
import { request } from '../../app/request';

const orderUrl = (id: string) => `${WORKORDER_BASE}/workorders/${encodeURIComponent(id)}`;

export function pageWorkOrders(query: WorkOrderPageQuery): Promise<WorkOrderPage> {
  return request.post<WorkOrderPage>(`${WORKORDER_BASE}/workorders/action/page`, { data: query });
}

export function createWorkOrder(body: WorkOrderCreate): Promise<WorkOrderDetail> {
  return request.post<WorkOrderDetail>(`${WORKORDER_BASE}/workorders`, { data: body });
}

export function getWorkOrder(id: string): Promise<WorkOrderDetail> {
  return request.get<WorkOrderDetail>(orderUrl(id));
}

export function replyWorkOrder(id: string, body: WorkOrderReplyCreate): Promise<WorkOrderDetail> {
  return request.post<WorkOrderDetail>(`${orderUrl(id)}/replies`, { data: body });
}

export function resolveWorkOrder(id: string): Promise<WorkOrderDetail> {
  return request.post<WorkOrderDetail>(`${orderUrl(id)}/resolve`, { data: {} });
}

export function closeWorkOrder(id: string): Promise<WorkOrderDetail> {
  return request.post<WorkOrderDetail>(`${orderUrl(id)}/close`, { data: {} });
}

export function uploadAttachment(file: File): Promise<WorkOrderAttachment> {
  const form = new FormData();
  form.append('file', file);
  return request.post<WorkOrderAttachment>(`${WORKORDER_BASE}/attachments`, { data: form });
}

/**
 * A screenshot's bytes. The route needs the `token` header, which an <img> cannot send, so the bytes come
 * through the pipeline and are shown from an object URL.
 */
export async function fetchAttachment(id: string): Promise<Blob> {
  const blob = await request.get<Blob>(`${WORKORDER_BASE}/attachments/${encodeURIComponent(id)}`, { responseType: 'blob', silent: true });
  return blob instanceof Blob ? blob : new Blob([]);
}

/** The caller's latest tasks of both families, for the form's 关联任务. */
export async function recentTasks(): Promise<Task[]> {
  const query = { pageNum: 1, pageSize: 50 };
  const [training, slurm] = await Promise.all(
    [TRAINING_BASE, SLURM_BASE].map((base) =>
      request.post<Page<Task>>(`${base}/tasks/action/page`, { data: query, silent: true }).catch(() => ({ list: [] as Task[], total: 0 })),
    ),
  );
  return [...training.list, ...slurm.list].sort((a, b) => b.createTime - a.createTime);
}

/**
 * The linked task of a work order, to link to its detail page (the link names no family): asked of both
 * families quietly; null when neither has it (deleted since, or not the viewer's).
 */
export async function findTask(id: string): Promise<TaskDetail | null> {
  for (const base of [TRAINING_BASE, SLURM_BASE]) {
    const task = await request.get<TaskDetail>(`${base}/tasks/${encodeURIComponent(id)}`, { silent: true }).catch(() => null);
    if (task) return task;
  }
  return null;
}
