import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isMissing } from './paths';

/** The shape of one upload, fixed by its first chunk; later chunks and the merge must agree with it. */
export interface UploadMeta {
  totalSize: number;
  totalChunks: number;
  chunkSize: number;
}

/** Abandoned uploads (no write for this long) are removed by `cleanup`. */
export const STALE_UPLOAD_MS = 24 * 3600_000;

/** Bytes chunk `n` (1-based) must hold. */
export function expectedChunkLength(n: number, m: UploadMeta): number {
  return n < m.totalChunks ? m.chunkSize : m.totalSize - (m.totalChunks - 1) * m.chunkSize;
}

export const chunkCountOf = (totalSize: number, chunkSize: number) => Math.max(1, Math.ceil(totalSize / chunkSize));

const CHUNK_FILE = /^\d+$/;

/**
 * Staged chunks on the file service's own disk: `<storageRoot>/.uploads/<account>/<identifier>/` holds
 * `meta.json` and one file per received chunk named by its number. A chunk is streamed to a uniquely named
 * `<n>.part.<rand>` and renamed into place only once its length is right, so the presence of `<n>` means
 * "chunk n is complete" — across crashes and concurrent re-sends — and resume needs nothing but readdir.
 */
export class ChunkStore {
  constructor(readonly root: string) {}

  accountDir(account: string) {
    return path.join(this.root, account);
  }

  dir(account: string, identifier: string) {
    return path.join(this.root, account, identifier);
  }

  async readMeta(account: string, identifier: string): Promise<UploadMeta | null> {
    try {
      return JSON.parse(await fs.readFile(path.join(this.dir(account, identifier), 'meta.json'), 'utf8')) as UploadMeta;
    } catch (e) {
      if (isMissing(e) || e instanceof SyntaxError) return null;
      throw e;
    }
  }

  /** Writes the meta atomically; concurrent first chunks write the same content, so the last rename is fine. */
  async writeMeta(account: string, identifier: string, meta: UploadMeta) {
    const dir = this.dir(account, identifier);
    await fs.mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `meta.json.${randomBytes(6).toString('hex')}`);
    await fs.writeFile(tmp, JSON.stringify(meta));
    await fs.rename(tmp, path.join(dir, 'meta.json'));
  }

  /** Numbers of the complete chunks, ascending. */
  async uploaded(account: string, identifier: string): Promise<number[]> {
    try {
      const names = await fs.readdir(this.dir(account, identifier));
      return names.filter((n) => CHUNK_FILE.test(n)).map(Number).sort((a, b) => a - b);
    } catch (e) {
      if (isMissing(e)) return [];
      throw e;
    }
  }

  chunkPath(account: string, identifier: string, n: number) {
    return path.join(this.dir(account, identifier), String(n));
  }

  /** A fresh name per request, so two copies of the same chunk in flight never write the same file. */
  partPath(account: string, identifier: string, n: number) {
    return path.join(this.dir(account, identifier), `${n}.part.${randomBytes(6).toString('hex')}`);
  }

  async sizeOf(p: string): Promise<number | null> {
    try {
      return (await fs.stat(p)).size;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async exists(account: string, identifier: string) {
    return (await this.sizeOf(this.dir(account, identifier))) !== null;
  }

  remove(account: string, identifier: string) {
    return fs.rm(this.dir(account, identifier), { recursive: true, force: true });
  }

  /**
   * Removes uploads whose last write (the directory or any file in it) is older than `maxAgeMs` at `now`,
   * skipping the ones `busy` says are being written or merged. Returns the removed `account/identifier`s.
   */
  async cleanup(now: number, busy: (account: string, identifier: string) => boolean, maxAgeMs = STALE_UPLOAD_MS): Promise<string[]> {
    const removed: string[] = [];
    for (const account of await readdirOrEmpty(this.root)) {
      const accountDir = this.accountDir(account);
      for (const identifier of await readdirOrEmpty(accountDir)) {
        if (busy(account, identifier)) continue;
        const dir = path.join(accountDir, identifier);
        if (now - (await lastWrite(dir)) <= maxAgeMs) continue;
        await fs.rm(dir, { recursive: true, force: true });
        removed.push(`${account}/${identifier}`);
      }
      // An account directory left empty goes too; rmdir refuses if a new upload raced in, which is fine.
      if ((await readdirOrEmpty(accountDir)).length === 0) await fs.rmdir(accountDir).catch(() => {});
    }
    return removed;
  }
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (e) {
    if (isMissing(e)) return [];
    throw e;
  }
}

async function lastWrite(dir: string): Promise<number> {
  let latest = (await fs.lstat(dir)).mtimeMs;
  for (const name of await readdirOrEmpty(dir)) {
    try {
      latest = Math.max(latest, (await fs.lstat(path.join(dir, name))).mtimeMs);
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
  }
  return latest;
}
