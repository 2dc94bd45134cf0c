/**
 * The training calls (docs/plan/9.md), one function per call, through the route descriptors: the task calls
 * every family shares (TrainingTaskApi), and what only training has (TrainingApi).
 */
import {
  TrainingApi,
  TrainingTaskApi,
  type IdeTicket,
  type ImageItem,
  type ImageQuery,
  type Placement,
  type PlacementQuery,
  type Task,
  type TaskSsh,
  type TrainingTaskCreate,
} from '@suanli/contracts';
import { call } from '../../app/request';
import { taskCalls } from '../../shared/task/task-calls';

/** The calls every task family shares (page, get, stop, resubmit, delete, log, metrics) under TRAINING_BASE. */
export const trainingTasks = taskCalls(TrainingTaskApi);

export function createTask(body: TrainingTaskCreate): Promise<Task> {
  return call(TrainingApi.create, { body });
}

/** 智能调度 preview: the center the server would choose now and why. */
export function previewPlacement(query: PlacementQuery): Promise<Placement> {
  return call(TrainingApi.placement, { body: query }, { silent: true });
}

export function listImages(query: ImageQuery): Promise<ImageItem[]> {
  return call(TrainingApi.images, { query });
}

/** How to SSH into a running develop task on a Slurm center (a local one answers 2251: no card is shown). */
export function taskSsh(id: string): Promise<TaskSsh> {
  return call(TrainingApi.ssh, { params: { id } }, { silent: true });
}

/** The first-hop URL of a running develop task's IDE (one minute; it sets a cookie scoped to the IDE's path). */
export function ideTicket(id: string): Promise<IdeTicket> {
  return call(TrainingApi.ideTicket, { params: { id } });
}
