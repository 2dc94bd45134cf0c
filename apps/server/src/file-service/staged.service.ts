import { ErrorCode, expectedChunkLength, type StagedUpload } from '@suanli/contracts';
import { fileErr } from './storage/account-fs';
import type { Spaces } from './storage/spaces';
import { spaceKey, type FileUser } from './identity';
import type { UploadService } from './upload.service';

/** Identifiers the console and API clients choose (contracts' `Identifier`); anything else in the staging is not an upload of theirs. */
const IDENTIFIER = /^[A-Za-z0-9_-]{8,128}$/;
/** A cross-center sync stages its files under `sync-…` (sync.service.ts): the platform's work, not the user's uploads. */
const SYNC_PREFIX = 'sync-';

const isUserUpload = (identifier: string) => IDENTIFIER.test(identifier) && !identifier.startsWith(SYNC_PREFIX);

/**
 * Interrupted uploads (issue 22 item 3): the caller's staged chunked uploads on this center, for the upload
 * panel's 继续 / 放弃 after a reload. Only the caller's own staging is reachable — the account comes from the
 * session (`FileUser`), and `identifier` only ever names an entry below that account's staging root.
 */
export class StagedUploadService {
  constructor(
    private readonly spaces: Spaces,
    private readonly uploads: UploadService,
  ) {}

  /** Every staged upload of the caller that still has its bytes, newest first (older stagings without a start time last). */
  async list(user: FileUser): Promise<StagedUpload[]> {
    return this.spaces.with(user, async (fs) => {
      const out: StagedUpload[] = [];
      for (const identifier of await fs.staging.identifiers()) {
        if (!isUserUpload(identifier)) continue;
        const meta = await fs.staging.readMeta(identifier);
        // No meta yet (a first chunk still arriving) or no data file (a merge that renamed it into place and
        // was stopped before its cleanup): nothing a person could resume.
        if (!meta || !(await fs.staging.hasData(identifier))) continue;
        const chunks = (await fs.staging.uploaded(identifier)).filter((n) => n <= meta.totalChunks);
        out.push({
          identifier,
          ...(typeof meta.filename === 'string' ? { filename: meta.filename } : {}),
          ...(typeof meta.path === 'string' ? { path: meta.path } : {}),
          ...(typeof meta.space === 'string' ? { space: meta.space } : {}),
          totalSize: meta.totalSize,
          chunkSize: meta.chunkSize,
          totalChunks: meta.totalChunks,
          uploadedChunks: chunks.length,
          uploadedBytes: chunks.reduce((n, k) => n + expectedChunkLength(k, meta), 0),
          ...(typeof meta.startedAt === 'number' ? { startedAt: meta.startedAt } : {}),
        });
      }
      return out.sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0) || a.identifier.localeCompare(b.identifier));
    });
  }

  /**
   * Removes one staged upload of the caller (its chunks stop counting against the quota). 1301 when the caller
   * has no such upload — another account's identifier included, which is looked for in the caller's staging
   * only; 1305 while a chunk of it is streaming or it is being merged.
   */
  async discard(user: FileUser, identifier: string): Promise<null> {
    if (!isUserUpload(identifier)) throw notStaged();
    await this.spaces.with(user, async (fs) => {
      if (!(await fs.staging.exists(identifier))) throw notStaged();
      if (this.uploads.busy(user, identifier)) throw fileErr(ErrorCode.UPLOAD_FAILED, '该文件正在上传或合并，请先取消上传');
      await this.uploads.abandon(user, fs, identifier);
    });
    this.spaces.usage.invalidate(spaceKey(user));
    return null;
  }
}

const notStaged = () => fileErr(ErrorCode.FILE_NOT_FOUND, '没有这个未完成的上传');
