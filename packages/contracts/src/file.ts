import { Type, type Static } from '@sinclair/typebox';
import { Millis, PageQuery } from './common';

/** Relative to a sub-center's `fileServiceUrl`. */
export const FILE_API_PREFIX = '/api/v1';

/** Chunk sizes a client may choose (the server advertises UPLOAD_CHUNK_SIZE in the chunk status). */
export const CHUNK_SIZE_MIN = 1024;
export const CHUNK_SIZE_MAX = 64 * 1024 * 1024;
/** Bounds the number of chunk files one upload can leave on disk. */
export const CHUNKS_MAX = 100_000;

/** A user-visible path inside the caller's space: `/` is the home on that center. */
export const UserPath = Type.String({ minLength: 1, maxLength: 4096 });

export const FileEntry = Type.Object({
  /** base64url of `path`. */
  id: Type.String(),
  name: Type.String(),
  path: UserPath,
  /** A symlink is shown as a link (its own size) and never followed by the service. */
  type: Type.Union([Type.Literal('dir'), Type.Literal('file'), Type.Literal('link')]),
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

export const Identifier = Type.String({ pattern: '^[A-Za-z0-9_-]{8,128}$' });
export const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
/** One path segment; '/', backslash, NUL, '.' and '..' are refused with 1308 by the service. */
export const FileName = Type.String({ minLength: 1, maxLength: 255 });

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

/**
 * The text fields of `POST /file/chunk/upload` (multipart). They must come BEFORE the `file` part: the
 * server streams the part straight to disk and needs to know where it goes and how long it must be.
 * Chunk k (1-based) holds bytes [(k−1)·chunkSize, min(k·chunkSize, totalSize)); totalChunks must equal
 * max(1, ceil(totalSize / chunkSize)).
 */
export const ChunkUploadFields = Type.Object({
  identifier: Identifier,
  chunkNumber: Type.Integer({ minimum: 1 }),
  totalChunks: Type.Integer({ minimum: 1, maximum: CHUNKS_MAX }),
  chunkSize: Type.Integer({ minimum: CHUNK_SIZE_MIN, maximum: CHUNK_SIZE_MAX }),
  totalSize: Type.Integer({ minimum: 0 }),
  filename: FileName,
  path: UserPath,
});
export type ChunkUploadFields = Static<typeof ChunkUploadFields>;

/** The shape of one chunked upload, fixed by its first chunk; later chunks and the merge must agree with it. */
export interface UploadShape {
  totalSize: number;
  totalChunks: number;
  chunkSize: number;
}
/** How many chunks a file of `totalSize` bytes has (an empty file is one empty chunk). */
export const chunkCountOf = (totalSize: number, chunkSize: number) => Math.max(1, Math.ceil(totalSize / chunkSize));
/** Where chunk `n` (1-based) starts. */
export const chunkOffset = (n: number, s: Pick<UploadShape, 'chunkSize'>) => (n - 1) * s.chunkSize;
/** Bytes chunk `n` (1-based) must hold. */
export const expectedChunkLength = (n: number, s: UploadShape) => (n < s.totalChunks ? s.chunkSize : s.totalSize - (s.totalChunks - 1) * s.chunkSize);
export const ChunkUploadResult = Type.Object({ uploaded: Type.Array(Type.Integer()) });
export type ChunkUploadResult = Static<typeof ChunkUploadResult>;

/** The text field of `POST /file/upload` (multipart), sent BEFORE the `file` part; ≤ SMALL_UPLOAD_MAX bytes. */
export const SmallUploadFields = Type.Object({ path: UserPath });

export const MergeBody = Type.Object({
  identifier: Identifier,
  filename: FileName,
  path: UserPath,
  totalChunks: Type.Integer({ minimum: 1 }),
  totalSize: Type.Integer({ minimum: 0 }),
  hash: Type.Optional(Sha256),
});
export const PathsBody = Type.Object({ paths: Type.Array(UserPath, { minItems: 1, maxItems: 1000 }) });

/** How long a download ticket can be used after it was issued. */
export const DOWNLOAD_TICKET_TTL_MS = 60_000;
/**
 * `POST /file/download/ticket`: the paths of `POST /file/download`, checked (session, confinement,
 * existence) now and again when the ticket is used.
 */
export const DownloadTicketBody = PathsBody;
/**
 * A short-lived download URL the browser navigates to itself (no `token` header), so its own download
 * manager streams the bytes to disk. `url` is relative to the center's `fileServiceUrl`
 * (`/api/v1/file/download/t/<ticket>`); it answers exactly what `POST /file/download` would for those
 * paths (Range included) and may be requested again — a resume — until `expiresAt`, while the issuing
 * session is still valid. Its refusals carry the envelope with an HTTP error status (session 401, path 403,
 * unknown/expired ticket 1312 or missing file 404), so a browser never saves one as the file.
 */
export const DownloadTicket = Type.Object({ url: Type.String(), expiresAt: Millis });
export type DownloadTicket = Static<typeof DownloadTicket>;
/** No format here: a malformed ticket answers the same 1312 as an unknown or expired one. */
export const DownloadTicketParams = Type.Object({ ticket: Type.String() });
export const RenameBody = Type.Object({ path: UserPath, newName: FileName });
export const MoveCopyBody = Type.Object({ paths: Type.Array(UserPath, { minItems: 1, maxItems: 1000 }), targetDir: UserPath });
/** `GET /usage`: bytes the caller uses on this center (home + staged chunks) and their quota. */
export const Usage = Type.Object({ used: Type.Integer(), quota: Type.Integer() });
export type Usage = Static<typeof Usage>;

/**
 * The name a download is saved under, as the file service names it (Content-Disposition): one file → its
 * own name; one folder → `<name>.zip`; several entries → `<first>等<n>个文件.zip`, `first` being the first
 * path of the request. The console announces the same name, so what it says is what the browser saves.
 */
export function downloadName(entries: readonly Pick<FileEntry, 'name' | 'type'>[]): string {
  if (entries.length === 0) return '';
  const first = entries[0].name;
  if (entries.length === 1) return entries[0].type === 'file' ? first : `${first}.zip`;
  return `${first}等${entries.length}个文件.zip`;
}

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
