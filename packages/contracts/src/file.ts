import { Type, type Static } from '@sinclair/typebox';
import { Millis, Null, Page, PageQuery } from './common';
import { route, type SchemasOf } from './route';

/** Relative to a sub-center's `fileServiceUrl`. */
export const FILE_API_PREFIX = '/api/v1';

/**
 * Which space of the caller a file-service call acts in (ADR 0018 "The team folder in 文件管理"): absent is
 * the caller's own home; `team:<teamId>` is that team's folder on the center (members only, 1205 otherwise).
 */
export const FILE_SPACE_HEADER = 'x-file-space';
export const TEAM_SPACE_PREFIX = 'team:';
export const teamSpace = (teamId: string) => `${TEAM_SPACE_PREFIX}${teamId}`;
/** What a non-member (or a leaver, or a team that does not exist) is told for a team's folder, with 1205. */
export const TEAM_SPACE_REFUSED = '团队空间不存在或您已不是该团队的成员';
/** A space header's value: the team id, null for the home; undefined when the value is malformed. */
export function teamOfSpace(space: string | undefined): string | null | undefined {
  if (space === undefined || space === '') return null;
  if (!space.startsWith(TEAM_SPACE_PREFIX)) return undefined;
  const id = space.slice(TEAM_SPACE_PREFIX.length);
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(id) ? id : undefined;
}

/** Chunk sizes a client may choose (the server advertises UPLOAD_CHUNK_SIZE in the chunk status). */
export const CHUNK_SIZE_MIN = 1024;
export const CHUNK_SIZE_MAX = 64 * 1024 * 1024;
/** Bounds the number of chunk files one upload can leave on disk. */
export const CHUNKS_MAX = 100_000;

/** A user-visible path inside the caller's space: `/` is the home on that center. */
export const UserPath = Type.String({ minLength: 1, maxLength: 4096 });
export type UserPath = Static<typeof UserPath>;

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
export type Identifier = Static<typeof Identifier>;
export const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
export type Sha256 = Static<typeof Sha256>;
/** One path segment; '/', backslash, NUL, '.' and '..' are refused with 1308 by the service. */
export const FileName = Type.String({ minLength: 1, maxLength: 255 });
export type FileName = Static<typeof FileName>;

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

export const FilePage = Page(FileEntry);
export type FilePage = Static<typeof FilePage>;
export const FileEntryList = Type.Array(FileEntry);
export type FileEntryList = Static<typeof FileEntryList>;
export type DirectoryQuery = Static<typeof DirectoryQuery>;
export type DirectoryBody = Static<typeof DirectoryBody>;
export type MkdirParams = Static<typeof MkdirParams>;
export type MkdirBody = Static<typeof MkdirBody>;
export type ChunkStatusQuery = Static<typeof ChunkStatusQuery>;
export type SmallUploadFields = Static<typeof SmallUploadFields>;
export type MergeBody = Static<typeof MergeBody>;
export type PathsBody = Static<typeof PathsBody>;
export type DownloadTicketParams = Static<typeof DownloadTicketParams>;
export type RenameBody = Static<typeof RenameBody>;
export type MoveCopyBody = Static<typeof MoveCopyBody>;

/**
 * The answer of a route that is not the JSON envelope: a file's bytes (Range, zip), or NDJSON progress lines.
 * Such a route's descriptor still states its method, URL and what the request carries (both sides take them
 * from it); the server registers it by hand (apps/server/src/file-service/stream-route.ts), not through `serve`.
 */
export const Streamed = Type.Unknown({ description: '字节流或 NDJSON 进度行（非 JSON 信封）' });
export type Streamed = Static<typeof Streamed>;

/**
 * Calls of one center's file service (relative to its `fileServiceUrl`; api-contract.md "File service"),
 * authenticated by the session token like gateway calls: `callWith(client, FileServiceApi.list, …)`.
 */
export const FileServiceApi = {
  list: route<{ query: typeof DirectoryQuery; body: typeof DirectoryBody; response: typeof FilePage }>('POST', FILE_API_PREFIX, '/directory'),
  mkdir: route<{ params: typeof MkdirParams; body: typeof MkdirBody; response: typeof FileEntry }>('POST', FILE_API_PREFIX, '/directory/:parentId'),
  chunkStatus: route<{ query: typeof ChunkStatusQuery; response: typeof ChunkStatus }>('GET', FILE_API_PREFIX, '/file/chunk/upload'),
  merge: route<{ body: typeof MergeBody; response: typeof FileEntry }>('POST', FILE_API_PREFIX, '/file/chunk/merge'),
  downloadTicket: route<{ body: typeof DownloadTicketBody; response: typeof DownloadTicket }>('POST', FILE_API_PREFIX, '/file/download/ticket'),
  remove: route<{ body: typeof PathsBody; response: typeof Null }>('DELETE', FILE_API_PREFIX, '/file'),
  rename: route<{ body: typeof RenameBody; response: typeof FileEntry }>('POST', FILE_API_PREFIX, '/file/rename'),
  move: route<{ body: typeof MoveCopyBody; response: typeof FileEntryList }>('POST', FILE_API_PREFIX, '/file/move'),
  copy: route<{ body: typeof MoveCopyBody; response: typeof FileEntryList }>('POST', FILE_API_PREFIX, '/file/copy'),
  usage: route<{ response: typeof Usage }>('GET', FILE_API_PREFIX, '/usage'),
};

export const FileServiceApiSchemas: SchemasOf<typeof FileServiceApi> = {
  list: { summary: '目录列表（目录在前；分页、排序、关键字）', querystring: DirectoryQuery, body: DirectoryBody, response: FilePage },
  mkdir: { summary: '新建目录（parentId = 父目录路径的 base64url）', params: MkdirParams, body: MkdirBody, response: FileEntry },
  chunkStatus: { summary: '分片上传状态（续传 / 秒传）', querystring: ChunkStatusQuery, response: ChunkStatus },
  merge: { summary: '合并分片', body: MergeBody, response: FileEntry },
  downloadTicket: { summary: '下载凭证：60 秒内有效、无需 token 头的下载地址（浏览器自行下载大文件）', body: DownloadTicketBody, response: DownloadTicket },
  remove: { summary: '删除文件或目录', body: PathsBody, response: Null },
  rename: { summary: '重命名', body: RenameBody, response: FileEntry },
  move: { summary: '移动到目标目录', body: MoveCopyBody, response: FileEntryList },
  copy: { summary: '复制到目标目录', body: MoveCopyBody, response: FileEntryList },
  usage: { summary: '本分中心的存储用量与配额（字节）', response: Usage },
};

/**
 * The file service's calls whose request or answer streams: multipart uploads (the file part goes to disk
 * unread; their text fields are `SmallUploadFields` / `ChunkUploadFields`, sent before the file) and downloads
 * (bytes with Range, or a zip). Registered by hand from these descriptors.
 */
export const FileTransferApi = {
  upload: route<{ response: typeof FileEntry }>('POST', FILE_API_PREFIX, '/file/upload'),
  chunkUpload: route<{ response: typeof ChunkUploadResult }>('POST', FILE_API_PREFIX, '/file/chunk/upload'),
  download: route<{ body: typeof PathsBody; response: typeof Streamed }>('POST', FILE_API_PREFIX, '/file/download'),
  /** A download ticket's URL (`DownloadTicket.url`): no token header, so a browser can navigate to it. */
  ticketDownload: route<{ params: typeof DownloadTicketParams; response: typeof Streamed }>('GET', FILE_API_PREFIX, '/file/download/t/:ticket', { public: true }),
};

export const FileTransferApiSchemas: SchemasOf<typeof FileTransferApi> = {
  upload: { summary: '小文件上传（multipart：path 字段在 file 之前）', response: FileEntry },
  chunkUpload: { summary: '上传一个分片（multipart：各字段在 file 之前）', response: ChunkUploadResult },
  download: { summary: '下载：单个文件（支持 Range）或多个路径 / 目录（zip 流）', body: PathsBody, response: Streamed },
  ticketDownload: { summary: '凭下载凭证下载（GET，无需 token 头；与 POST /file/download 的应答相同，支持 Range）', params: DownloadTicketParams, response: Streamed },
};

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
