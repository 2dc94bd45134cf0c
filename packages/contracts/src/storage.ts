import { Type, type Static } from '@sinclair/typebox';
import { AssetFileList, AssetReadme } from './asset';
import { Null } from './common';
import { FILE_API_PREFIX, Streamed } from './file';
import { FOUNDATION_BASE } from './foundation';
import { route, routeUrl, type SchemasOf } from './route';

/*
 * A center's storage as the gateway uses it (docs/adr/0016-center-storage.md): the calls the gateway makes on
 * a center's file service when that center's disk is not mounted on the gateway (`storageAccess: fileService`
 * in the centers file). Not called by the console. `StorageApi` / `StorageStreamApi` below, relative to the
 * center's `fileServiceUrl`, every call with STORAGE_GRANT_HEADER.
 */

/** Header carrying the gateway's storage grant for one center; file services resolve it through the gateway. */
export const STORAGE_GRANT_HEADER = 'storage-grant';
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
/** `GET …/agent/storage-grant?subCenterId=` (header STORAGE_GRANT_HEADER): is it the gateway's, for that center. */
export const STORAGE_AGENT_GRANT_PATH = routeUrl(StorageAgentApi.grant);

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
/** A team's storage area on a center (ADR 0018): exactly these members' accounts read and write it. */
export const StorageTeamAccessBody = Type.Object({
  teamId: AreaId,
  /** Numeric uids of the members' cluster accounts on that center; none closes the folder (0700). */
  uids: Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 10_000 }),
  /** Make the folder first (a team's first apply on a center). */
  create: Type.Optional(Type.Boolean()),
});
export type StorageTeamAccessBody = Static<typeof StorageTeamAccessBody>;
export const StorageSnapshotBody = Type.Object({ account: Account, path: UserPath, assetId: AreaId, versionId: AreaId });
export type StorageSnapshotBody = Static<typeof StorageSnapshotBody>;
export const StorageManifest = Type.Object({ manifest: Type.Union([Type.String(), Type.Null()]) });
export type StorageManifest = Static<typeof StorageManifest>;

/** One line of the NDJSON answer to `StorageStreamApi.snapshot`: progress, then `done` or `error`. */
export type StorageSnapshotLine =
  | { type: 'progress'; copied: number; total: number }
  | { type: 'done'; sizeBytes: number; fileCount: number; digest: string }
  | { type: 'error'; code: number; message: string };

export const StorageStat = Type.Union([StorageEntry, Type.Null()]);
export type StorageStat = Static<typeof StorageStat>;
export const StorageAssetDirs = Type.Array(Type.String());
export type StorageAssetDirs = Static<typeof StorageAssetDirs>;
const Bool = Type.Boolean();

/**
 * The file service's side (relative to `{fileServiceUrl}`), called only by the gateway's `HttpCenterStorage`,
 * every call with STORAGE_GRANT_HEADER. JSON in, the envelope out.
 */
export const StorageApi = {
  /** Makes the account's home exist. */
  ensureHome: route<{ body: typeof StorageAccountBody; response: typeof Null }>('POST', FILE_API_PREFIX, '/storage/home'),
  stat: route<{ body: typeof StorageHomePath; response: typeof StorageStat }>('POST', FILE_API_PREFIX, '/storage/home/stat'),
  /** Makes a folder of the home with its missing parents (a task's working folder). */
  makeDir: route<{ body: typeof StorageHomePath; response: typeof Null }>('POST', FILE_API_PREFIX, '/storage/home/dir'),
  /** The folders of the asset area. */
  assetDirs: route<{ response: typeof StorageAssetDirs }>('GET', FILE_API_PREFIX, '/storage/assets'),
  hasAssetDir: route<{ body: typeof StorageAsset; response: typeof Bool }>('POST', FILE_API_PREFIX, '/storage/assets/exists'),
  applyAccess: route<{ body: typeof StorageAccessBody; response: typeof Bool }>('POST', FILE_API_PREFIX, '/storage/assets/access'),
  closeAssetDir: route<{ body: typeof StorageAsset; response: typeof Null }>('POST', FILE_API_PREFIX, '/storage/assets/close'),
  /** The folders of the teams' area (ADR 0018). */
  teamDirs: route<{ response: typeof StorageAssetDirs }>('GET', FILE_API_PREFIX, '/storage/teams'),
  applyTeamAccess: route<{ body: typeof StorageTeamAccessBody; response: typeof Bool }>('POST', FILE_API_PREFIX, '/storage/teams/access'),
  removeAsset: route<{ body: typeof StorageAsset; response: typeof Null }>('POST', FILE_API_PREFIX, '/storage/assets/remove'),
  versionManifest: route<{ body: typeof StorageVersion; response: typeof StorageManifest }>('POST', FILE_API_PREFIX, '/storage/assets/version/manifest'),
  adoptCopy: route<{ body: typeof StorageAdopt; response: typeof Null }>('POST', FILE_API_PREFIX, '/storage/assets/version/adopt'),
  removeVersion: route<{ body: typeof StorageVersion; response: typeof Null }>('POST', FILE_API_PREFIX, '/storage/assets/version/remove'),
  listVersion: route<{ body: typeof StorageVersionPath; response: typeof AssetFileList }>('POST', FILE_API_PREFIX, '/storage/assets/version/list'),
  versionReadme: route<{ body: typeof StorageVersion; response: typeof AssetReadme }>('POST', FILE_API_PREFIX, '/storage/assets/version/readme'),
};

export const StorageApiSchemas: SchemasOf<typeof StorageApi> = {
  ensureHome: { summary: '网关：确保集群账号的家目录存在', body: StorageAccountBody, response: Null },
  stat: { summary: '网关：家目录中条目的 lstat（不跟随链接）', body: StorageHomePath, response: StorageStat },
  makeDir: { summary: '网关：在家目录中建立目录（含缺少的上级目录）', body: StorageHomePath, response: Null },
  assetDirs: { summary: '网关：数据区中的资产目录', response: StorageAssetDirs },
  hasAssetDir: { summary: '网关：资产目录是否存在', body: StorageAsset, response: Bool },
  applyAccess: { summary: '网关：设置资产目录的访问权限（ACL）', body: StorageAccessBody, response: Bool },
  closeAssetDir: { summary: '网关：关闭无主的资产目录（0700）', body: StorageAsset, response: Null },
  teamDirs: { summary: '网关：团队空间中的团队目录', response: StorageAssetDirs },
  applyTeamAccess: { summary: '网关：设置团队目录的访问权限（ACL）', body: StorageTeamAccessBody, response: Bool },
  removeAsset: { summary: '网关：删除资产目录', body: StorageAsset, response: Null },
  versionManifest: { summary: '网关：版本的校验清单（sha256sum 格式）', body: StorageVersion, response: StorageManifest },
  adoptCopy: { summary: '网关：把同步来的副本登记为版本（清单、只读）', body: StorageAdopt, response: Null },
  removeVersion: { summary: '网关：删除版本的文件与清单', body: StorageVersion, response: Null },
  listVersion: { summary: '网关：版本中某目录的条目', body: StorageVersionPath, response: AssetFileList },
  versionReadme: { summary: '网关：版本的 README', body: StorageVersion, response: AssetReadme },
};

/**
 * The calls whose body or answer streams: a file's bytes (with STORAGE_FILE_SIZE_HEADER), a file written from
 * the request body itself (`application/octet-stream`), a snapshot's NDJSON progress lines (StorageSnapshotLine).
 */
export const StorageStreamApi = {
  /** A regular file's bytes (a range with `limit`); the envelope with null data when there is no such file. */
  readFile: route<{ query: typeof StorageHomeRead; response: typeof Streamed }>('GET', FILE_API_PREFIX, '/storage/home/file'),
  /** The request body is the file's content. */
  writeFile: route<{ query: typeof StorageHomePath; response: typeof Null }>('PUT', FILE_API_PREFIX, '/storage/home/file'),
  snapshot: route<{ body: typeof StorageSnapshotBody; response: typeof Streamed }>('POST', FILE_API_PREFIX, '/storage/assets/snapshot'),
  /** A file of a version (a missing one is refused, 1301). */
  versionFile: route<{ query: typeof StorageVersionPath; response: typeof Streamed }>('GET', FILE_API_PREFIX, '/storage/assets/version/file'),
};

export const StorageStreamApiSchemas: SchemasOf<typeof StorageStreamApi> = {
  readFile: { summary: '网关：读取家目录中的文件（offset/limit 可选；无此文件时 data 为 null）', querystring: StorageHomeRead, response: Streamed },
  writeFile: { summary: '网关：写入家目录中的文件（请求体为文件内容）', querystring: StorageHomePath, response: Null },
  snapshot: { summary: '网关：把家目录中的文件夹复制为只读版本（NDJSON 进度行）', body: StorageSnapshotBody, response: Streamed },
  versionFile: { summary: '网关：读取版本中的文件', querystring: StorageVersionPath, response: Streamed },
};
