import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Null } from './common';
import { route, type SchemasOf } from './route';

/**
 * 镜像 (issue 11 item 3): private images in the platform's OCI registry (CNCF distribution) under the user's
 * namespace; the gateway is the registry's token issuer (Docker registry token protocol). See
 * docs/adr/0009-image-registry.md.
 */
export const IMAGE_BASE = '/gateway/image/api/v1';
/** The registry's token endpoint (its `auth.token.realm`), relative to the gateway. */
export const REGISTRY_TOKEN_PATH = `${IMAGE_BASE}/registry/token`;
/** Namespace of the operators' public images, readable by every signed-in user. */
export const PUBLIC_IMAGE_NAMESPACE = 'public';

/** Where to push and how to log in (the user's namespace is their username in lower case). */
export const RegistryInfo = Type.Object({
  /** `host:port` for `docker login` / `docker push` (empty: no registry configured). */
  address: Type.String(),
  namespace: Type.String(),
  username: Type.String(),
  /** Whether the user has made a registry password (it is shown once, when reset). */
  hasCredential: Type.Boolean(),
});
export type RegistryInfo = Static<typeof RegistryInfo>;

export const RegistryCredential = Type.Object({
  username: Type.String(),
  /** Shown once; only its hash is kept. */
  password: Type.String(),
});
export type RegistryCredential = Static<typeof RegistryCredential>;

export const ImageTag = Type.Object({
  tag: Type.String(),
  /** Manifest digest (`sha256:…`). */
  digest: Type.String(),
  /** Config + layers, compressed, as the manifest states them. */
  sizeBytes: Type.Number(),
  layers: Type.Integer(),
  /** From the image config (`created`), when it says. */
  created: Type.Union([Millis, Type.Null()]),
  pullCommand: Type.String(),
});
export type ImageTag = Static<typeof ImageTag>;

export const ImageRepository = Type.Object({
  /** `<namespace>/<repo>` */
  name: Type.String(),
  tags: Type.Array(ImageTag),
});
export type ImageRepository = Static<typeof ImageRepository>;
export const ImageRepositoryList = Type.Array(ImageRepository);
export type ImageRepositoryList = Static<typeof ImageRepositoryList>;

export const ImageNameQuery = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) });
export type ImageNameQuery = Static<typeof ImageNameQuery>;
export const ImageTagParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }), tag: Type.String({ minLength: 1, maxLength: 128 }) });
export type ImageTagParams = Static<typeof ImageTagParams>;

/** A repository name inside the namespace: lowercase path components as the OCI distribution spec allows them. */
export const IMAGE_REPOSITORY_NAME_MAX = 64;
export const IMAGE_REPOSITORY_NAME_PATTERN = '^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$';
/** A tag as docker accepts it. */
export const IMAGE_TAG_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$';

// ---- import of an image archive from the user's storage (ADR 0009 §5) ---------------------------------------

export const IMAGE_ARCHIVE_FORMATS = ['docker-archive', 'oci-archive'] as const;
export type ImageArchiveFormat = (typeof IMAGE_ARCHIVE_FORMATS)[number];

export const ImageImportCreate = Type.Object({
  subCenterId: Type.String({ minLength: 1, maxLength: 64 }),
  /** The archive in the user's storage on that center (`/images/app.tar`): `docker save` output or an OCI archive. */
  path: Type.String({ minLength: 1, maxLength: 1024 }),
  /** Repository inside the caller's namespace (`my-app` → `<namespace>/my-app`). */
  repository: Type.String({ minLength: 1, maxLength: IMAGE_REPOSITORY_NAME_MAX }),
  /** Tag to push as; default: the archive's own tag, else `latest`. */
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
export type ImageImportCreate = Static<typeof ImageImportCreate>;

/** running → succeeded | failed. */
export const ImageImportState = Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]);
export type ImageImportState = Static<typeof ImageImportState>;

export const ImageImport = Type.Object({
  id: Type.String(),
  subCenterId: Type.String(),
  path: Type.String(),
  /** `<namespace>/<repository>` */
  repository: Type.String(),
  /** Empty until the archive was read when none was asked for. */
  tag: Type.String(),
  /** `docker-archive` or `oci-archive` once the archive was read (empty before). */
  format: Type.String(),
  state: ImageImportState,
  /** Reading the archive is the first 40 %, pushing to the registry the rest. */
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  /** What is happening, or — failed — what is wrong (`镜像文件无效：…` names the problem of the archive). */
  message: Type.String(),
  /** Manifest digest once pushed. */
  digest: Type.String(),
  createTime: Millis,
  updateTime: Millis,
});
export type ImageImport = Static<typeof ImageImport>;
export const ImageImportParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type ImageImportParams = Static<typeof ImageImportParams>;

// ---- public images on request (issue 20 审核) ------------------------------------------------------------

/**
 * An owner asks for one of their tags to become a public image; an operator approves (the image is copied,
 * byte for byte, to `public/<namespace>/<repository>:<tag>` in the registry and joins the public images of
 * the task form) or rejects with a reason. pending → approved | rejected; a rejected tag may be asked again.
 */
export const ImagePublicationState = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]);
export type ImagePublicationState = Static<typeof ImagePublicationState>;

export const ImagePublication = Type.Object({
  id: Id,
  ownerId: Id,
  ownerName: Type.String(),
  /** The owner's image, `<namespace>/<repository>:<tag>`. */
  source: Type.String(),
  /** The manifest digest asked for: exactly this is published, whatever the tag points to later. */
  digest: Type.String(),
  /** The public image's id once approved (`public/<namespace>/<repository>:<tag>`), what the task form offers. */
  target: Type.String(),
  state: ImagePublicationState,
  /** The operator's reason (required to reject). */
  reason: Type.String(),
  createTime: Millis,
  reviewTime: Type.Union([Millis, Type.Null()]),
});
export type ImagePublication = Static<typeof ImagePublication>;
export const ImagePublicationList = Type.Array(ImagePublication);
export type ImagePublicationList = Static<typeof ImagePublicationList>;

/** Ask for a tag of one's own repository (`<namespace>/<repository>`) to be made public. */
export const ImagePublicationCreate = ImageTagParams;
export type ImagePublicationCreate = Static<typeof ImagePublicationCreate>;

export const ImagePublicationReview = Type.Object({
  approve: Type.Boolean(),
  /** Told to the owner; required to reject. Kept in the audit entry. */
  reason: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ImagePublicationReview = Static<typeof ImagePublicationReview>;

// ---- route descriptors (packages/contracts/src/route.ts) ------------------------------------------------

/**
 * 镜像: served by the image module under IMAGE_BASE. The registry's token endpoint (REGISTRY_TOKEN_PATH) is
 * not among them: it speaks the Docker registry token protocol (no envelope, HTTP Basic), and only the
 * registry calls it.
 */
export const ImageApi = {
  registry: route<{ response: typeof RegistryInfo }>('GET', IMAGE_BASE, '/registry'),
  resetCredential: route<{ response: typeof RegistryCredential }>('POST', IMAGE_BASE, '/registry/credential/reset'),
  list: route<{ response: typeof ImageRepositoryList }>('GET', IMAGE_BASE, '/images'),
  detail: route<{ query: typeof ImageNameQuery; response: typeof ImageRepository }>('GET', IMAGE_BASE, '/images/detail'),
  deleteTag: route<{ query: typeof ImageTagParams; response: typeof Null }>('DELETE', IMAGE_BASE, '/images/tags'),
  startImport: route<{ body: typeof ImageImportCreate; response: typeof ImageImport }>('POST', IMAGE_BASE, '/imports'),
  getImport: route<{ params: typeof ImageImportParams; response: typeof ImageImport }>('GET', IMAGE_BASE, '/imports/:id'),
  requestPublication: route<{ body: typeof ImagePublicationCreate; response: typeof ImagePublication }>('POST', IMAGE_BASE, '/publications'),
  publications: route<{ response: typeof ImagePublicationList }>('GET', IMAGE_BASE, '/publications'),
  pendingPublications: route<{ response: typeof ImagePublicationList }>('GET', IMAGE_BASE, '/publications/action/pending', { role: 'operator' }),
  reviewPublication: route<{ params: typeof IdParams; body: typeof ImagePublicationReview; response: typeof ImagePublication }>('POST', IMAGE_BASE, '/publications/:id/review', { role: 'operator' }),
};

export const ImageApiSchemas: SchemasOf<typeof ImageApi> = {
  registry: { summary: '镜像仓库地址与我的命名空间', response: RegistryInfo },
  resetCredential: { summary: '重置镜像仓库密码（新密码仅显示一次）', response: RegistryCredential },
  list: { summary: '我的私有镜像（仓库与标签）', response: ImageRepositoryList },
  detail: { summary: '私有镜像详情（标签、摘要、大小、层数、创建时间）', querystring: ImageNameQuery, response: ImageRepository },
  deleteTag: { summary: '删除镜像标签', querystring: ImageTagParams, response: Null },
  startImport: { summary: '从存储中的镜像文件（docker save / OCI 归档）导入到我的命名空间；进度经 image.import.changed 推送', body: ImageImportCreate, response: ImageImport },
  getImport: { summary: '镜像导入的状态与进度', params: ImageImportParams, response: ImageImport },
  requestPublication: { summary: '申请将我的镜像标签设为公共镜像（运营审核）', body: ImagePublicationCreate, response: ImagePublication },
  publications: { summary: '我的公共镜像申请（最新的在前）', response: ImagePublicationList },
  pendingPublications: { summary: '待审核的公共镜像申请（运营人员）', response: ImagePublicationList },
  reviewPublication: { summary: '审核公共镜像申请：通过后复制到 public 命名空间并出现在公共镜像中，驳回须填写原因（运营人员）', params: IdParams, body: ImagePublicationReview, response: ImagePublication },
};
