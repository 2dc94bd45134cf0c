import { Type, type Static } from '@sinclair/typebox';
import { Millis, Null } from './common';
import { FILE_API_PREFIX, Identifier } from './file';
import { route, type SchemasOf } from './route';

/**
 * Interrupted uploads (issue 22 item 3): what a sub-center's file service still holds of the caller's chunked
 * uploads that never merged — a page reload, a closed tab, a lost connection. The upload panel lists them after
 * a reload, with 继续 (pick the same file; the upload resumes from the staged chunks) and 放弃 (the staged
 * chunks are removed). Only the caller's own staging is ever read or removed: the service resolves the account
 * from the session, never from the request.
 */
export const StagedUpload = Type.Object({
  /** The upload's identifier (the console's is the SHA-256 of folder, name, size and modification time). */
  identifier: Identifier,
  /**
   * The file's name and the folder it goes to, as its first chunk named them. Absent for an upload staged
   * before they were recorded (such an upload cannot be resumed from the list, only discarded).
   */
  filename: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  /** A team's folder (`team:<id>`, the `x-file-space` it was sent with; ADR 0018); absent: the home. */
  space: Type.Optional(Type.String()),
  totalSize: Type.Integer({ minimum: 0 }),
  chunkSize: Type.Integer(),
  totalChunks: Type.Integer(),
  /** Chunks complete on the server and the bytes they hold. */
  uploadedChunks: Type.Integer(),
  uploadedBytes: Type.Integer(),
  /** When its first chunk arrived (absent for older stagings). */
  startedAt: Type.Optional(Millis),
});
export type StagedUpload = Static<typeof StagedUpload>;

export const StagedUploadList = Type.Array(StagedUpload);
export type StagedUploadList = Static<typeof StagedUploadList>;
/** In the body, like `DELETE /file`'s paths: an identifier may be longer than a URL parameter may (100). */
export const StagedUploadRef = Type.Object({ identifier: Identifier });
export type StagedUploadRef = Static<typeof StagedUploadRef>;

/** Calls of one center's file service (relative to its `fileServiceUrl`): `callWith(client, StagedUploadApi.list)`. */
export const StagedUploadApi = {
  list: route<{ response: typeof StagedUploadList }>('GET', FILE_API_PREFIX, '/file/chunk/staged'),
  discard: route<{ body: typeof StagedUploadRef; response: typeof Null }>('DELETE', FILE_API_PREFIX, '/file/chunk/staged'),
};

export const StagedUploadApiSchemas: SchemasOf<typeof StagedUploadApi> = {
  list: { summary: '我在本分中心未完成的分片上传（中断的上传，最新在前）', response: StagedUploadList },
  discard: { summary: '放弃一个未完成的分片上传（删除已上传的分片）', body: StagedUploadRef, response: Null },
};
