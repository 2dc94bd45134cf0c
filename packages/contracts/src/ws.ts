import type { CenterChanged } from './center-admin';
import type { ImageImport } from './image';
import type { SyncJob } from './sync';
import type { WorkOrder } from './workorder';
import type { TeamChanged } from './team';
import type { JobState, TaskKind } from './task';

/** A task moved (design/api-contract.md): the console updates its query cache from it, never by polling. */
export interface TaskStateChanged {
  taskId: string;
  kind: TaskKind;
  state: JobState;
  reason: string;
}
/**
 * Live updates (`WS_PATH`, token in the `token` query parameter). Server → client JSON events; the client
 * sends an empty message every SOCKET_KEEPALIVE_MS and the server closes sockets silent for
 * SOCKET_IDLE_CLOSE_MS.
 */
export type WsEvent =
  | { businessType: 'notice.unread.increment'; data: { count: number } }
  | { businessType: 'task.state.changed'; data: TaskStateChanged }
  | { businessType: 'comp-power.changed'; data: Record<string, never> }
  | { businessType: 'asset.version.changed'; data: AssetVersionChanged }
  | { businessType: 'image.import.changed'; data: ImageImport }
  | { businessType: 'sync.changed'; data: SyncJob }
  | { businessType: 'resource.sampled'; data: ResourceSampled }
  | { businessType: 'workorder.changed'; data: WorkOrder }
  | { businessType: 'center.changed'; data: CenterChanged }
  | { businessType: 'team.changed'; data: TeamChanged };
export type WsBusinessType = WsEvent['businessType'];

export const WS_UNREAD_INCREMENT = 'notice.unread.increment' satisfies WsBusinessType;
export const WS_TASK_STATE_CHANGED = 'task.state.changed' satisfies WsBusinessType;
/** A dataset or model version is being copied (progress at most twice a second), is ready, or failed. */
export const WS_ASSET_VERSION_CHANGED = 'asset.version.changed' satisfies WsBusinessType;
/** An image import moved on (progress at most twice a second), succeeded or failed: the whole import. */
export const WS_IMAGE_IMPORT_CHANGED = 'image.import.changed' satisfies WsBusinessType;
/** A cross-center sync moved on (progress at most twice a second), succeeded, failed or was cancelled: the whole job. */
export const WS_SYNC_CHANGED = 'sync.changed' satisfies WsBusinessType;
/**
 * A center's inventory was sampled (资源, every 30 s per center, offline included): sent to every open
 * socket — the inventory is everyone's — so 资源概览 and 资源大屏 re-read at once instead of on a timer.
 */
/** A work order got a reply or changed state: sent to its owner (the list and detail re-read). */
export const WS_WORKORDER_CHANGED = 'workorder.changed' satisfies WsBusinessType;
/** A team's members, roles, name or invitations changed: sent to its members and the invitee (the team pages re-read). */
export const WS_TEAM_CHANGED = 'team.changed' satisfies WsBusinessType;
export const WS_RESOURCE_SAMPLED = 'resource.sampled' satisfies WsBusinessType;
/** A center's status changed (运营管理 › 分中心), to everyone: center lists and 购买算力 read again. */
export const WS_CENTER_CHANGED = 'center.changed' satisfies WsBusinessType;
export interface ResourceSampled {
  centerId: string;
  /** Epoch ms of the sample (the overview's sampledAt). */
  sampledAt: number;
}
export interface AssetVersionChanged {
  kind: 'dataset' | 'model';
  assetId: string;
  versionId: string;
  state: 'creating' | 'ready' | 'failed';
  reason: string;
  copiedBytes: number;
}

/**
 * Close codes besides SOCKET_CLOSE_BAD_TOKEN (4001, with the session code 10133/10157/10307 as the close
 * reason). A handshake from an Origin outside the allow-list never becomes a socket: it is refused with
 * HTTP 403 before the upgrade, so there is no close code for it.
 */
/** Silent longer than SOCKET_IDLE_CLOSE_MS (4000 + HTTP 408). The client just reconnects. */
export const SOCKET_CLOSE_IDLE = 4008;
/**
 * More than SOCKET_MAX_FRAMES_PER_SECOND frames from the client within one second (4000 + HTTP 429). The
 * console sends one keep-alive every SOCKET_KEEPALIVE_MS, so only a misbehaving client ever sees it.
 */
export const SOCKET_CLOSE_TOO_MANY_FRAMES = 4029;
export const SOCKET_MAX_FRAMES_PER_SECOND = 20;
