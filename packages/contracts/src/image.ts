import { Type, type Static } from '@sinclair/typebox';
import { Millis } from './common';

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
