import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Null, Page } from './common';
import { FILE_API_PREFIX, Streamed } from './file';
import { route, type SchemasOf } from './route';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './constants';

/**
 * 跨中心同步 (issue 11 item 5): a folder or file of the caller's storage on one center copied into their
 * storage on another, file service to file service — resumable (the receiving file service stages chunks as
 * an upload does and resumes from them after any interruption), checksummed (every file's SHA-256 computed
 * by the source is verified by the receiver before the file is placed) and cancellable. The copy appears at
 * `targetDir/<source name>` only when complete. See docs/adr/0010-cross-center-sync.md.
 */
export const SYNC_BASE = '/gateway/sync/api/v1';

export const SYNC_STATES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export const SyncState = Type.Union(SYNC_STATES.map((s) => Type.Literal(s)));
export type SyncState = Static<typeof SyncState>;
/** States a sync job no longer leaves. */
export const SYNC_FINAL_STATES: readonly SyncState[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
/** Chinese labels of the states (lists, the task panel). */
export const SYNC_STATE_LABELS: Record<SyncState, string> = {
  QUEUED: '排队中',
  RUNNING: '同步中',
  SUCCEEDED: '已完成',
  FAILED: '失败',
  CANCELLED: '已取消',
};
/** Unfinished sync jobs one user may have at a time. */
export const SYNC_ACTIVE_MAX = 5;

export const SyncCreate = Type.Object({
  sourceCenterId: Type.String({ minLength: 1, maxLength: 64 }),
  /** A folder or file in the caller's storage on the source center (`/data/imagenet`). */
  sourcePath: Type.String({ minLength: 1, maxLength: 1024 }),
  targetCenterId: Type.String({ minLength: 1, maxLength: 64 }),
  /** An existing folder on the target center; the copy is made as `targetDir/<source name>`. */
  targetDir: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type SyncCreate = Static<typeof SyncCreate>;

export const SyncJob = Type.Object({
  id: Id,
  /**
   * `path`: a folder or file of the user's storage; `version`: a dataset or model version copied into the
   * target center's asset area because a task there mounts it (made by the platform, shown to its user).
   */
  kind: Type.Union([Type.Literal('path'), Type.Literal('version')]),
  /** What a `version` job copies (`数据集「MNIST」v1`); '' for `path` jobs. */
  label: Type.String(),
  sourceCenterId: Type.String(),
  sourceCenterName: Type.String(),
  sourcePath: Type.String(),
  targetCenterId: Type.String(),
  targetCenterName: Type.String(),
  targetDir: Type.String(),
  /** Where the copy is (or will be): `targetDir/<source name>`. */
  targetPath: Type.String(),
  state: SyncState,
  /** Bytes of the source already on the target (staged or placed), and all of them (0 until listed). */
  bytesDone: Type.Number(),
  bytesTotal: Type.Number(),
  filesDone: Type.Integer(),
  filesTotal: Type.Integer(),
  /** What is happening (`连接中断，5 秒后重试`), or — failed — why. */
  message: Type.String(),
  /** Interruptions survived (each resumed from what had arrived). */
  retries: Type.Integer(),
  createTime: Millis,
  updateTime: Millis,
  finishTime: Type.Union([Millis, Type.Null()]),
});
export type SyncJob = Static<typeof SyncJob>;

export const SyncPageQuery = Type.Object({
  /** `active`: queued and running only. */
  scope: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('all')], { default: 'all' })),
  pageNum: Type.Integer({ minimum: 1, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
});
export type SyncPageQuery = Static<typeof SyncPageQuery>;

// ---- between the gateway and the file services (not called by the console) ------------------------------

/** Header carrying a sync job's grant: file services resolve it like a session token, scoped to one job. */
export const SYNC_GRANT_HEADER = 'sync-grant';
export const SyncGrantQuery = Type.Object({ subCenterId: Type.String({ minLength: 1, maxLength: 64 }) });
export type SyncGrantQuery = Static<typeof SyncGrantQuery>;
export const SyncGrant = Type.Object({
  jobId: Type.String(),
  /**
   * `source`: read `path` on this center; `target`: make `targetDir/<name>` on this center; `discard`: only
   * remove what the ended job left in `targetDir` here (its hidden folder and staged chunks).
   */
  role: Type.Union([Type.Literal('source'), Type.Literal('target'), Type.Literal('discard')]),
  /**
   * Whose space the paths are in: `home` — the account's home (as its uid/gid where accounts are real);
   * `assets` — the center's platform-managed asset area `<storageRoot>/.assets`, as the service itself.
   */
  scope: Type.Union([Type.Literal('home'), Type.Literal('assets')]),
  /** The caller's cluster account on this center (as `GET /agent/user/get` answers it). */
  account: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
  sourceCenterId: Type.String(),
  sourcePath: Type.String(),
  targetCenterId: Type.String(),
  targetDir: Type.String(),
});
export type SyncGrant = Static<typeof SyncGrant>;

export const SyncManifestEntry = Type.Object({
  /** Relative to the source (`a/b.bin`); '' for a source that is a single file. */
  path: Type.String(),
  type: Type.Union([Type.Literal('dir'), Type.Literal('file')]),
  size: Type.Number(),
});
export type SyncManifestEntry = Static<typeof SyncManifestEntry>;
export const SyncManifest = Type.Object({
  /** The source's own name (what the copy is called on the target). */
  name: Type.String(),
  type: Type.Union([Type.Literal('dir'), Type.Literal('file')]),
  entries: Type.Array(SyncManifestEntry),
});
export type SyncManifest = Static<typeof SyncManifest>;
export const SyncFileQuery = Type.Object({ path: Type.String({ maxLength: 4096 }) });
export type SyncFileQuery = Static<typeof SyncFileQuery>;
export const SyncHash = Type.Object({ sha256: Type.String() });
export type SyncHash = Static<typeof SyncHash>;

/** One line of the receiver's NDJSON answer to `POST /sync/pull`: progress, then `done` or `error`. */
export type SyncPullLine =
  | { type: 'progress'; bytesDone: number; bytesTotal: number; filesDone: number; filesTotal: number }
  | { type: 'done'; bytesDone: number; bytesTotal: number; filesDone: number; filesTotal: number }
  | { type: 'error'; code: number; message: string };

export const SyncJobPage = Page(SyncJob);
export type SyncJobPage = Static<typeof SyncJobPage>;

export const SyncApi = {
  create: route<{ body: typeof SyncCreate; response: typeof SyncJob }>('POST', SYNC_BASE, '/syncs'),
  page: route<{ body: typeof SyncPageQuery; response: typeof SyncJobPage }>('POST', SYNC_BASE, '/syncs/action/page'),
  detail: route<{ params: typeof IdParams; response: typeof SyncJob }>('GET', SYNC_BASE, '/syncs/:id'),
  cancel: route<{ params: typeof IdParams; response: typeof SyncJob }>('POST', SYNC_BASE, '/syncs/:id/cancel'),
  // Called by standalone file services (no session): the job's grant travels in the `sync-grant` header.
  grant: route<{ query: typeof SyncGrantQuery; response: typeof SyncGrant }>('GET', SYNC_BASE, '/agent/grant', { public: true }),
};

export const SyncApiSchemas: SchemasOf<typeof SyncApi> = {
  create: { summary: '创建跨中心同步任务（文件夹或文件 → 另一分中心的目录）', body: SyncCreate, response: SyncJob },
  page: { summary: '我的跨中心同步任务（最新在前）', body: SyncPageQuery, response: SyncJobPage },
  detail: { summary: '同步任务详情', params: IdParams, response: SyncJob },
  cancel: { summary: '取消同步任务（目标分中心已暂存的内容被删除）', params: IdParams, response: SyncJob },
  grant: { summary: '文件服务：解析同步凭证（sync-grant 头）在该分中心的权限', querystring: SyncGrantQuery, response: SyncGrant },
};

/**
 * A file service's side of a sync (relative to its `fileServiceUrl`), all with SYNC_GRANT_HEADER: called by the
 * gateway's sync runner and by the receiving file service (sync-clients.ts), never by the console.
 */
export const SyncFileApi = {
  /** The source's list of files. */
  manifest: route<{ response: typeof SyncManifest }>('POST', FILE_API_PREFIX, '/sync/source/manifest'),
  hash: route<{ query: typeof SyncFileQuery; response: typeof SyncHash }>('GET', FILE_API_PREFIX, '/sync/source/hash'),
  /** The receiver drops what it staged (the job was cancelled or ended). */
  discard: route<{ response: typeof Null }>('DELETE', FILE_API_PREFIX, '/sync/pull'),
};
export const SyncFileApiSchemas: SchemasOf<typeof SyncFileApi> = {
  manifest: { summary: '跨中心同步：源的文件清单（sync-grant 头）', response: SyncManifest },
  hash: { summary: '跨中心同步：源文件的 SHA-256', querystring: SyncFileQuery, response: SyncHash },
  discard: { summary: '跨中心同步：删除接收方暂存的内容（取消或结束后）', response: Null },
};

/** The streaming ones: a source file's bytes (Range), and the receiver's pull (NDJSON `SyncPullLine`s). */
export const SyncFileStreamApi = {
  file: route<{ query: typeof SyncFileQuery; response: typeof Streamed }>('GET', FILE_API_PREFIX, '/sync/source/file'),
  pull: route<{ response: typeof Streamed }>('POST', FILE_API_PREFIX, '/sync/pull'),
};
export const SyncFileStreamApiSchemas: SchemasOf<typeof SyncFileStreamApi> = {
  file: { summary: '跨中心同步：源文件的字节（支持 Range）', querystring: SyncFileQuery, response: Streamed },
  pull: { summary: '跨中心同步：接收方拉取并放置副本（NDJSON 进度行，断开即停止，再次调用即续传）', response: Streamed },
};
