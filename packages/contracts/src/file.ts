import { Type, type Static } from '@sinclair/typebox';
import { Millis, PageQuery } from './common';

/** Relative to a sub-center's `fileServiceUrl`. */
export const FILE_API_PREFIX = '/api/v1';

/** A user-visible path inside the caller's space: `/` is the home on that center. */
export const UserPath = Type.String({ minLength: 1, maxLength: 4096 });

export const FileEntry = Type.Object({
  /** base64url of `path`. */
  id: Type.String(),
  name: Type.String(),
  path: UserPath,
  type: Type.Union([Type.Literal('dir'), Type.Literal('file')]),
  size: Type.Integer(),
  updateTime: Millis,
});
export type FileEntry = Static<typeof FileEntry>;

export const DirectoryQuery = Type.Composite([PageQuery, Type.Object({ path: Type.Optional(UserPath) })]);
export const DirectoryBody = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 255 })),
  sortField: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('size'), Type.Literal('updateTime')])),
  sortOrder: Type.Optional(Type.Union([Type.Literal('ascend'), Type.Literal('descend')])),
});
export const MkdirParams = Type.Object({ parentId: Type.String({ maxLength: 8192 }) });
export const MkdirBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) });

const Identifier = Type.String({ pattern: '^[A-Za-z0-9_-]{8,128}$' });
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const FileName = Type.String({ minLength: 1, maxLength: 255 });

export const ChunkStatusQuery = Type.Object({
  identifier: Identifier,
  path: UserPath,
  filename: FileName,
  totalSize: Type.Integer({ minimum: 0 }),
  hash: Type.Optional(Sha256),
});
export const ChunkStatus = Type.Object({
  uploaded: Type.Array(Type.Integer()),
  skip: Type.Boolean(),
  chunkSize: Type.Integer(),
  /** Present when `skip` is true: the entry placed by instant upload. */
  entry: Type.Optional(FileEntry),
});
export type ChunkStatus = Static<typeof ChunkStatus>;

export const MergeBody = Type.Object({
  identifier: Identifier,
  filename: FileName,
  path: UserPath,
  totalChunks: Type.Integer({ minimum: 1 }),
  totalSize: Type.Integer({ minimum: 0 }),
  hash: Type.Optional(Sha256),
});
export const PathsBody = Type.Object({ paths: Type.Array(UserPath, { minItems: 1, maxItems: 1000 }) });
export const RenameBody = Type.Object({ path: UserPath, newName: FileName });
export const MoveCopyBody = Type.Object({ paths: Type.Array(UserPath, { minItems: 1, maxItems: 1000 }), targetDir: UserPath });
export const Usage = Type.Object({ used: Type.Integer(), quota: Type.Integer() });

export function pathToId(path: string): string {
  const bytes = new TextEncoder().encode(path);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
export function idToPath(id: string): string {
  const b64 = id.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}
