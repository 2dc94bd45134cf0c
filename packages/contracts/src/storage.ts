import { Type, type Static } from '@sinclair/typebox';
import { FOUNDATION_BASE } from './foundation';
import { route, type SchemasOf } from './route';

/*
 * A center's storage as the gateway uses it (docs/adr/0016-center-storage.md): the calls the gateway makes on
 * a center's file service when that center's disk is not mounted on the gateway (`storageAccess: fileService`
 * in the centers file). Not called by the console. Relative to `{fileServiceUrl}{FILE_API_PREFIX}`, every call
 * with STORAGE_GRANT_HEADER.
 */

/** Header carrying the gateway's storage grant for one center; file services resolve it through the gateway. */
export const STORAGE_GRANT_HEADER = 'storage-grant';
/** `GET {FOUNDATION_BASE}/agent/storage-grant?subCenterId=` (header STORAGE_GRANT_HEADER): is it the gateway's, for that center. */
export const STORAGE_AGENT_GRANT_PATH = `${FOUNDATION_BASE}/agent/storage-grant`;
export const StorageGrantQuery = Type.Object({ subCenterId: Type.String({ minLength: 1, maxLength: 64 }) });
export type StorageGrantQuery = Static<typeof StorageGrantQuery>;
export const StorageGrant = Type.Object({
  subCenterId: Type.String(),
  /** Epoch ms after which the grant is refused (10133); the gateway makes a new one before then. */
  expireTime: Type.Number(),
});
export type StorageGrant = Static<typeof StorageGrant>;

/** The gateway's side: called by standalone file services (no session), the grant in STORAGE_GRANT_HEADER. */
export const StorageAgentApi = {
  grant: route<{ query: typeof StorageGrantQuery; response: typeof StorageGrant }>('GET', FOUNDATION_BASE, '/agent/storage-grant', { public: true }),
};
export const StorageAgentApiSchemas: SchemasOf<typeof StorageAgentApi> = {
  grant: { summary: '文件服务：校验网关的存储凭证（storage-grant 头）', querystring: StorageGrantQuery, response: StorageGrant },
};

/** File service calls (relative to `{fileServiceUrl}{FILE_API_PREFIX}`). POST with a JSON body unless noted. */
/** Makes the account's home exist. */
export const STORAGE_FS_HOME = '/storage/home';
export const STORAGE_FS_HOME_STAT = '/storage/home/stat';
/** GET (query StorageHomeRead): a regular file's bytes, STORAGE_FILE_SIZE_HEADER its size; PUT (query StorageHomePath): writes it. */
export const STORAGE_FS_HOME_FILE = '/storage/home/file';
/** GET: the folders of the asset area. */
export const STORAGE_FS_ASSETS = '/storage/assets';
export const STORAGE_FS_ASSET_EXISTS = '/storage/assets/exists';
export const STORAGE_FS_ASSET_ACCESS = '/storage/assets/access';
export const STORAGE_FS_ASSET_CLOSE = '/storage/assets/close';
export const STORAGE_FS_ASSET_REMOVE = '/storage/assets/remove';
/** NDJSON answer (StorageSnapshotLine). */
export const STORAGE_FS_SNAPSHOT = '/storage/assets/snapshot';
export const STORAGE_FS_VERSION_MANIFEST = '/storage/assets/version/manifest';
export const STORAGE_FS_VERSION_ADOPT = '/storage/assets/version/adopt';
export const STORAGE_FS_VERSION_REMOVE = '/storage/assets/version/remove';
export const STORAGE_FS_VERSION_LIST = '/storage/assets/version/list';
export const STORAGE_FS_VERSION_README = '/storage/assets/version/readme';
/** GET (query StorageVersionPath): a file of a version, STORAGE_FILE_SIZE_HEADER its size. */
export const STORAGE_FS_VERSION_FILE = '/storage/assets/version/file';
/** Header of a file answer: the file's whole size (a partial read answers fewer bytes). */
export const STORAGE_FILE_SIZE_HEADER = 'x-file-size';

/** A cluster account's name, as the pool makes them (and as file services accept them as directory names). */
const Account = Type.String({ pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$' });
/** Ids of the asset area's folders (asset and version ids are newId()s). */
const AreaId = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' });
const UserPath = Type.String({ maxLength: 4096 });

export const StorageAccountBody = Type.Object({ account: Account });
export type StorageAccountBody = Static<typeof StorageAccountBody>;
export const StorageHomePath = Type.Object({ account: Account, path: UserPath });
export type StorageHomePath = Static<typeof StorageHomePath>;
export const StorageHomeRead = Type.Object({
  account: Account,
  path: UserPath,
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Absent: to the end of the file. */
  limit: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type StorageHomeRead = Static<typeof StorageHomeRead>;

/** An entry of a home as lstat sees it (links reported as links, never followed). */
export const StorageEntry = Type.Object({
  type: Type.Union([Type.Literal('file'), Type.Literal('dir'), Type.Literal('link'), Type.Literal('other')]),
  size: Type.Number(),
  mtimeMs: Type.Number(),
});
export type StorageEntry = Static<typeof StorageEntry>;

export const StorageAsset = Type.Object({ assetId: AreaId });
export type StorageAsset = Static<typeof StorageAsset>;
export const StorageVersion = Type.Object({ assetId: AreaId, versionId: AreaId });
export type StorageVersion = Static<typeof StorageVersion>;
export const StorageVersionPath = Type.Object({ assetId: AreaId, versionId: AreaId, path: UserPath });
export type StorageVersionPath = Static<typeof StorageVersionPath>;
export const StorageAdopt = Type.Object({ assetId: AreaId, versionId: AreaId, manifest: Type.String({ maxLength: 64 * 1024 * 1024 }) });
export type StorageAdopt = Static<typeof StorageAdopt>;
export const StorageAccessBody = Type.Object({
  assetId: AreaId,
  public: Type.Boolean(),
  /** Numeric uids of the cluster accounts that may read the asset's folder on that center. */
  uids: Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 10_000 }),
  /** Make the folder first (a copy about to be synced there). */
  create: Type.Optional(Type.Boolean()),
});
export type StorageAccessBody = Static<typeof StorageAccessBody>;
export const StorageSnapshotBody = Type.Object({ account: Account, path: UserPath, assetId: AreaId, versionId: AreaId });
export type StorageSnapshotBody = Static<typeof StorageSnapshotBody>;
export const StorageManifest = Type.Object({ manifest: Type.Union([Type.String(), Type.Null()]) });
export type StorageManifest = Static<typeof StorageManifest>;

/** One line of the NDJSON answer to `POST STORAGE_FS_SNAPSHOT`: progress, then `done` or `error`. */
export type StorageSnapshotLine =
  | { type: 'progress'; copied: number; total: number }
  | { type: 'done'; sizeBytes: number; fileCount: number; digest: string }
  | { type: 'error'; code: number; message: string };
