import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Null, PageQuery, Page } from './common';
import { route, type SchemasOf } from './route';

/**
 * 数据集 / 模型 (issue 11 items 1–2): one shape for both kinds, a model adds framework, format, metrics and
 * the task it came from. A version is an immutable snapshot of a folder on one center (see
 * docs/adr/0008-data-assets.md).
 */
export const DATASET_BASE = '/gateway/dataset/api/v1';
export const MODEL_BASE = '/gateway/model/api/v1';

export const ASSET_KINDS = ['dataset', 'model'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

export const ASSET_NAME_MAX = 64;
export const ASSET_TAGS_MAX = 10;
export const ASSET_VERSIONS_MAX = 50;
export const ASSET_SHARES_MAX = 50;
/** A version holds at most this many entries (files and folders); a bigger tree is better archived first. */
export const ASSET_VERSION_FILES_MAX = 100_000;
/** README shown on the detail page: the version's `README.md` (any case), up to this many bytes. */
export const ASSET_README_MAX = 256 * 1024;

/** Licences the form offers (free text is allowed too, up to 64 characters). */
export const ASSET_LICENSES = ['CC BY 4.0', 'CC BY-SA 4.0', 'CC BY-NC 4.0', 'CC0 1.0', 'MIT', 'Apache-2.0', 'GPL-3.0', '其他'] as const;

const Tag = Type.String({ minLength: 1, maxLength: 20 });
const Tags = Type.Array(Tag, { maxItems: ASSET_TAGS_MAX });
const Description = Type.String({ maxLength: 2000 });
const License = Type.String({ maxLength: 64 });

/** private: the owner only; shared: named users read and mount; public: everyone, through the hall. */
export const AssetVisibility = Type.Union([Type.Literal('private'), Type.Literal('shared'), Type.Literal('public')]);
export type AssetVisibility = Static<typeof AssetVisibility>;
/** Publication to the public hall: none → pending (the owner asked) → published (an operator approved). */
export const AssetPublishState = Type.Union([Type.Literal('none'), Type.Literal('pending'), Type.Literal('published')]);
export type AssetPublishState = Static<typeof AssetPublishState>;
/** creating: the snapshot is being copied; ready: usable; failed: the copy stopped (reason says why). */
export const AssetVersionState = Type.Union([Type.Literal('creating'), Type.Literal('ready'), Type.Literal('failed')]);
export type AssetVersionState = Static<typeof AssetVersionState>;

export const AssetVersion = Type.Object({
  id: Id,
  /** 1, 2, 3… within the asset; shown as v1, v2. */
  version: Type.Integer(),
  subCenterId: Type.String(),
  subCenterName: Type.String(),
  /** The folder it was made from, as the user saw it (`/data/mnist`); later edits there do not change it. */
  sourcePath: Type.String(),
  state: AssetVersionState,
  reason: Type.String(),
  sizeBytes: Type.Number(),
  fileCount: Type.Integer(),
  /** Bytes copied so far while `creating`. */
  copiedBytes: Type.Number(),
  /** sha256 over the sorted list of `<sha256>  <path>` lines of its files (what `sha256sum` prints). */
  digest: Type.String(),
  note: Type.String(),
  /** Set when the version was registered from a training task's output. */
  sourceTaskId: Type.Union([Type.String(), Type.Null()]),
  /** Where a task sees it, read-only: `/mnt/<kind>s/<asset name>/v<version>` (see the task form). */
  mountPath: Type.String(),
  createTime: Millis,
});
export type AssetVersion = Static<typeof AssetVersion>;

export const Asset = Type.Object({
  id: Id,
  kind: Type.Union(ASSET_KINDS.map((k) => Type.Literal(k))),
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  license: Type.String(),
  visibility: AssetVisibility,
  publishState: AssetPublishState,
  /** Why the owner's last request to publish was rejected (shown to them until they ask again); empty otherwise. */
  publishReason: Type.String(),
  ownerId: Id,
  ownerName: Type.String(),
  /** Whether the caller owns it (false: shared with them, or public). */
  mine: Type.Boolean(),
  /** Models only (empty for datasets). */
  framework: Type.String(),
  format: Type.String(),
  metrics: Type.Record(Type.String(), Type.Number()),
  versionCount: Type.Integer(),
  /** Size of the newest ready version. */
  latestSizeBytes: Type.Number(),
  createTime: Millis,
  updateTime: Millis,
});
export type Asset = Static<typeof Asset>;

export const AssetDetail = Type.Composite([
  Asset,
  Type.Object({
    versions: Type.Array(AssetVersion),
    /** Users it is shared with (owner only; empty for others). */
    shares: Type.Array(Type.Object({ userId: Id, username: Type.String(), nickname: Type.String() })),
    /** Teams it is shared with (owner only; every current member reads and mounts it; ADR 0018). */
    teamShares: Type.Array(Type.Object({ teamId: Id, teamName: Type.String() })),
    /** Whether it is in the caller's 共享 list (shared with them, or added from the hall); false for the owner. */
    added: Type.Boolean(),
  }),
]);
export type AssetDetail = Static<typeof AssetDetail>;

export const AssetPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    /** own: mine; shared: shared with me by others (or added from the hall); public: the public hall. */
    scope: Type.Union([Type.Literal('own'), Type.Literal('shared'), Type.Literal('public')], { default: 'own' }),
    keyword: Type.Optional(Type.String({ maxLength: 64 })),
    tag: Type.Optional(Tag),
  }),
]);
export type AssetPageQuery = Static<typeof AssetPageQuery>;
export const AssetPage = Page(Asset);
export type AssetPage = Static<typeof AssetPage>;

// A schema, not a spread object: a module-level spread would keep TypeBox in the console's login bundle
// (a bundler cannot drop a spread it cannot prove free of getters).
const ModelFields = Type.Object({
  framework: Type.Optional(Type.String({ maxLength: 32 })),
  format: Type.Optional(Type.String({ maxLength: 32 })),
  metrics: Type.Optional(Type.Record(Type.String({ maxLength: 32 }), Type.Number(), { maxProperties: 20 })),
});

const AssetCreateFields = Type.Object({
  name: Type.String({ minLength: 1, maxLength: ASSET_NAME_MAX }),
  description: Type.Optional(Description),
  tags: Type.Optional(Tags),
  license: Type.Optional(License),
  /** Make v1 from this folder right away (optional: an asset may start empty). */
  source: Type.Optional(Type.Object({ subCenterId: Type.String({ minLength: 1 }), path: Type.String({ minLength: 1, maxLength: 4096 }), note: Type.Optional(Type.String({ maxLength: 200 })) })),
});
export const AssetCreate = Type.Composite([AssetCreateFields, ModelFields]);
export type AssetCreate = Static<typeof AssetCreate>;

export const AssetUpdate = Type.Composite([
  Type.Object({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: ASSET_NAME_MAX })),
    description: Type.Optional(Description),
    tags: Type.Optional(Tags),
    license: Type.Optional(License),
  }),
  ModelFields,
]);
export type AssetUpdate = Static<typeof AssetUpdate>;

export const AssetVersionCreate = Type.Object({
  subCenterId: Type.String({ minLength: 1 }),
  /** A folder in the caller's home on that center. */
  path: Type.String({ minLength: 1, maxLength: 4096 }),
  note: Type.Optional(Type.String({ maxLength: 200 })),
});
export type AssetVersionCreate = Static<typeof AssetVersionCreate>;

export const AssetVersionParams = Type.Object({ id: Id, versionId: Id });
export type AssetVersionParams = Static<typeof AssetVersionParams>;

export const AssetShareBody = Type.Object({
  usernames: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: ASSET_SHARES_MAX }),
});
export type AssetShareBody = Static<typeof AssetShareBody>;

export const AssetFilesQuery = Type.Object({ path: Type.String({ default: '/', maxLength: 4096 }) });
export type AssetFilesQuery = Static<typeof AssetFilesQuery>;

export const AssetFileEntry = Type.Object({
  name: Type.String(),
  type: Type.Union([Type.Literal('file'), Type.Literal('dir')]),
  size: Type.Number(),
});
export type AssetFileEntry = Static<typeof AssetFileEntry>;
export const AssetFileList = Type.Array(AssetFileEntry);
export type AssetFileList = Static<typeof AssetFileList>;

export const AssetReadme = Type.Object({
  /** Markdown source (the console renders it without raw HTML); empty when the version has no README. */
  markdown: Type.String(),
  fileName: Type.String(),
});
export type AssetReadme = Static<typeof AssetReadme>;

/** 登记为模型: a finished training task's output folder becomes a model version linked to the task. */
export const ModelFromTask = Type.Object({
  taskId: Id,
  /** A folder of the caller's home on the task's center; default the task's working directory. */
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  /** Add the version to this model of the caller's; otherwise a new model named `name` is created. */
  modelId: Type.Optional(Id),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: ASSET_NAME_MAX })),
  framework: Type.Optional(Type.String({ maxLength: 32 })),
  note: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ModelFromTask = Static<typeof ModelFromTask>;

/** A version the caller can mount in a task (own, or shared with / added by them), for the task form. */
export const MountableVersion = Type.Object({
  assetId: Id,
  assetName: Type.String(),
  ownerName: Type.String(),
  mine: Type.Boolean(),
  versionId: Id,
  version: Type.Integer(),
  note: Type.String(),
  /** Where the version is; a task on another center waits while it is synced there (ADR 0010 §8). */
  subCenterId: Type.String(),
  subCenterName: Type.String(),
  sizeBytes: Type.Number(),
});
export type MountableVersion = Static<typeof MountableVersion>;
export const MountableVersionList = Type.Array(MountableVersion);
export type MountableVersionList = Static<typeof MountableVersionList>;
export const MountableQuery = Type.Object({ subCenterId: Type.Optional(Type.String({ maxLength: 64 })) });
export type MountableQuery = Static<typeof MountableQuery>;

/** An operator's decision on a publication request. */
export const AssetReview = Type.Object({
  approve: Type.Boolean(),
  /** Told to the owner; required to reject. Kept in the audit entry. */
  reason: Type.Optional(Type.String({ maxLength: 200 })),
});
export type AssetReview = Static<typeof AssetReview>;
export const AssetList = Type.Array(Asset);
export type AssetList = Static<typeof AssetList>;

export const AssetShareParams = Type.Object({ id: Id, userId: Id });
export type AssetShareParams = Static<typeof AssetShareParams>;
/** Share with a team the caller is a member of. */
export const AssetTeamShareBody = Type.Object({ teamId: Id });
export type AssetTeamShareBody = Static<typeof AssetTeamShareBody>;
export const AssetTeamShareParams = Type.Object({ id: Id, teamId: Id });
export type AssetTeamShareParams = Static<typeof AssetTeamShareParams>;
/** 团队详情: what is shared with the team (members only). */
export const AssetTeamQuery = Type.Object({ teamId: Id });
export type AssetTeamQuery = Static<typeof AssetTeamQuery>;
/** A version's file as bytes (`application/octet-stream`, not the envelope). */
export const AssetFileBytes = Type.Unknown();
export type AssetFileBytes = Static<typeof AssetFileBytes>;

// ---- route descriptors (packages/contracts/src/route.ts) ------------------------------------------------

/** The calls both kinds share, under the kind's base and collection (`/datasets`, `/models`). */
/* @__NO_SIDE_EFFECTS__ */
function assetApi(base: string, c: string) {
  return {
    page: route<{ body: typeof AssetPageQuery; response: typeof AssetPage }>('POST', base, `${c}/action/page`),
    mountable: route<{ query: typeof MountableQuery; response: typeof MountableVersionList }>('GET', base, `${c}/action/mountable`),
    create: route<{ body: typeof AssetCreate; response: typeof AssetDetail }>('POST', base, c),
    detail: route<{ params: typeof IdParams; response: typeof AssetDetail }>('GET', base, `${c}/:id`),
    update: route<{ params: typeof IdParams; body: typeof AssetUpdate; response: typeof AssetDetail }>('PUT', base, `${c}/:id`),
    remove: route<{ params: typeof IdParams; response: typeof Null }>('DELETE', base, `${c}/:id`),
    addVersion: route<{ params: typeof IdParams; body: typeof AssetVersionCreate; response: typeof AssetVersion }>('POST', base, `${c}/:id/versions`),
    removeVersion: route<{ params: typeof AssetVersionParams; response: typeof Null }>('DELETE', base, `${c}/:id/versions/:versionId`),
    files: route<{ params: typeof AssetVersionParams; query: typeof AssetFilesQuery; response: typeof AssetFileList }>('GET', base, `${c}/:id/versions/:versionId/files`),
    readme: route<{ params: typeof AssetVersionParams; response: typeof AssetReadme }>('GET', base, `${c}/:id/versions/:versionId/readme`),
    /** Answers the file's bytes, not the envelope. */
    download: route<{ params: typeof AssetVersionParams; query: typeof AssetFilesQuery; response: typeof AssetFileBytes }>('GET', base, `${c}/:id/versions/:versionId/download`),
    share: route<{ params: typeof IdParams; body: typeof AssetShareBody; response: typeof AssetDetail }>('POST', base, `${c}/:id/shares`),
    unshare: route<{ params: typeof AssetShareParams; response: typeof AssetDetail }>('DELETE', base, `${c}/:id/shares/:userId`),
    shareTeam: route<{ params: typeof IdParams; body: typeof AssetTeamShareBody; response: typeof AssetDetail }>('POST', base, `${c}/:id/team-shares`),
    unshareTeam: route<{ params: typeof AssetTeamShareParams; response: typeof AssetDetail }>('DELETE', base, `${c}/:id/team-shares/:teamId`),
    teamShared: route<{ query: typeof AssetTeamQuery; response: typeof AssetList }>('GET', base, `${c}/action/team-shared`),
    addToMine: route<{ params: typeof IdParams; response: typeof AssetDetail }>('POST', base, `${c}/:id/add-to-mine`),
    pendingPublication: route<{ response: typeof AssetList }>('GET', base, `${c}/action/pending-publication`, { role: 'operator' }),
    review: route<{ params: typeof IdParams; body: typeof AssetReview; response: typeof AssetDetail }>('POST', base, `${c}/:id/publish/review`, { role: 'operator' }),
    publish: route<{ params: typeof IdParams; response: typeof AssetDetail }>('POST', base, `${c}/:id/publish`),
  };
}

/** 数据集: served by the asset module under DATASET_BASE. */
export const DatasetApi = assetApi(DATASET_BASE, '/datasets');
/** 模型: the same calls under MODEL_BASE, and 登记为模型. */
export const ModelApi = modelApi();
// A function, not a module-level spread: a spread cannot be dropped from bundles that do not use it.
/* @__NO_SIDE_EFFECTS__ */
function modelApi() {
  return {
    ...assetApi(MODEL_BASE, '/models'),
    registerFromTask: route<{ body: typeof ModelFromTask; response: typeof AssetDetail }>('POST', MODEL_BASE, '/models/action/register-from-task'),
  };
}
export type AssetApi = typeof DatasetApi;

/** The schemas of the shared calls, summaries naming the kind (`数据集` / `模型`). */
export function assetApiSchemas(what: string): SchemasOf<AssetApi> {
  return {
    page: { summary: `${what}列表（我的 / 共享给我的 / 公共资源大厅）`, body: AssetPageQuery, response: AssetPage },
    mountable: { summary: `可在训练任务中挂载的${what}版本（我的与共享给我的）`, querystring: MountableQuery, response: MountableVersionList },
    create: { summary: `创建${what}（可同时从存储中的文件夹生成 v1）`, body: AssetCreate, response: AssetDetail },
    detail: { summary: `${what}详情（版本与共享）`, params: IdParams, response: AssetDetail },
    update: { summary: `修改${what}信息（仅所有者）`, params: IdParams, body: AssetUpdate, response: AssetDetail },
    remove: { summary: `删除${what}及其全部版本（仅所有者）`, params: IdParams, response: Null },
    addVersion: { summary: '从存储中的文件夹创建新版本（不可变快照）', params: IdParams, body: AssetVersionCreate, response: AssetVersion },
    removeVersion: { summary: '删除版本（仅所有者）', params: AssetVersionParams, response: Null },
    files: { summary: '版本中的文件（只读浏览）', params: AssetVersionParams, querystring: AssetFilesQuery, response: AssetFileList },
    readme: { summary: '版本的 README（Markdown 原文）', params: AssetVersionParams, response: AssetReadme },
    download: { summary: '下载版本中的一个文件', params: AssetVersionParams, querystring: AssetFilesQuery, response: AssetFileBytes },
    share: { summary: '共享给指定用户（只读）', params: IdParams, body: AssetShareBody, response: AssetDetail },
    unshare: { summary: '取消共享', params: AssetShareParams, response: AssetDetail },
    shareTeam: { summary: `共享给我所在的团队（成员只读、可挂载）`, params: IdParams, body: AssetTeamShareBody, response: AssetDetail },
    unshareTeam: { summary: '取消与团队的共享', params: AssetTeamShareParams, response: AssetDetail },
    teamShared: { summary: `共享给团队的${what}（团队成员可见）`, querystring: AssetTeamQuery, response: AssetList },
    addToMine: { summary: '从公共资源大厅添加到我的（出现在共享列表中）', params: IdParams, response: AssetDetail },
    pendingPublication: { summary: '待审核的公开申请（运营人员）', response: AssetList },
    review: { summary: '审核公开申请：通过后出现在公共资源大厅，驳回须填写原因（运营人员）', params: IdParams, body: AssetReview, response: AssetDetail },
    publish: { summary: '申请发布到公共资源大厅（运营审核）', params: IdParams, response: AssetDetail },
  };
}

export const ModelExtraApiSchemas = {
  registerFromTask: { summary: '登记为模型：把运行成功的训练任务的输出文件夹生成模型版本', body: ModelFromTask, response: AssetDetail },
} satisfies Pick<SchemasOf<typeof ModelApi>, 'registerFromTask'>;
