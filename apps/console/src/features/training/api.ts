/**
 * The training calls (docs/plan/9.md, base TRAINING_BASE), one function per call, through the console's one
 * request pipeline: the task calls every family shares, and what only training has.
 */
import {
  TRAINING_BASE,
  type ImageItem,
  type ImageQuery,
  type Placement,
  type PlacementQuery,
  type IdeTicket,
  type TaskSsh,
  type Task,
  type TrainingTaskCreate,
} from '@suanli/contracts';
import { request } from '../../app/request';
import { taskCalls } from '../../shared/task/task-calls';

/** The calls every task family shares (page, get, stop, resubmit, delete, log, metrics) under TRAINING_BASE. */
export const trainingTasks = taskCalls(request, TRAINING_BASE);

export function createTask(body: TrainingTaskCreate): Promise<Task> {
  return request.post<Task>(`${TRAINING_BASE}/tasks`, { data: body });
}

/** 智能调度 preview: the center the server would choose now and why. */
export function previewPlacement(query: PlacementQuery): Promise<Placement> {
  return request.post<Placement>(`${TRAINING_BASE}/placement`, { data: query, silent: true });
}

export function listImages(query: ImageQuery): Promise<ImageItem[]> {
  return request.get<ImageItem[]>(`${TRAINING_BASE}/images`, { params: { ...query } });
}

/** How to SSH into a running develop task on a Slurm center (a local one answers 2251: no card is shown). */
export function taskSsh(id: string): Promise<TaskSsh> {
  return request.get<TaskSsh>(`${TRAINING_BASE}/tasks/${encodeURIComponent(id)}/ssh`, { silent: true });
}

/** The first-hop URL of a running develop task's IDE (one minute; it sets a cookie scoped to the IDE's path). */
export function ideTicket(id: string): Promise<IdeTicket> {
  return request.post<IdeTicket>(`${TRAINING_BASE}/tasks/${encodeURIComponent(id)}/ide-ticket`);
}
