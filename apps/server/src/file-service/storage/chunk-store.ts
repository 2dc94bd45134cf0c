import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { errCode, isMissing } from './paths';

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

export const chunkOffset = (n: number, m: UploadMeta) => (n - 1) * m.chunkSize;

export const chunkCountOf = (totalSize: number, chunkSize: number) => Math.max(1, Math.ceil(totalSize / chunkSize));

const MARKER = /^\d+$/;
const DATA = 'data';

/**
 * Staged uploads on the file service's own disk: `<storageRoot>/.uploads/<account>/<identifier>/` holds
 * `meta.json`, `data` — one sparse file of the final size into which every chunk is streamed at its own
 * offset — and an empty marker file `<n>` per complete chunk.
 *
 * Why one data file rather than a file per chunk: every byte is written to disk exactly once, and the merge
 * is a verification pass plus a rename instead of a second full copy (which halved throughput on large
 * files; see docs/plan/3.md). A marker is created only after its whole range was written by one request,
 * and removed before a re-send overwrites the range, so "marker n exists" means "chunk n is complete" across
 * crashes, kills and concurrent re-sends; resume needs nothing but readdir.
 */
export class ChunkStore {
  constructor(readonly root: string) {}

  accountDir(account: string) {
    return path.join(this.root, account);
  }

  dir(account: string, identifier: string) {
    return path.join(this.root, account, identifier);
  }

  dataPath(account: string, identifier: string) {
    return path.join(this.dir(account, identifier), DATA);
  }

  markerPath(account: string, identifier: string, n: number) {
    return path.join(this.dir(account, identifier), String(n));
  }

  async readMeta(account: string, identifier: string): Promise<UploadMeta | null> {
    try {
      return JSON.parse(await fs.readFile(path.join(this.dir(account, identifier), 'meta.json'), 'utf8')) as UploadMeta;
    } catch (e) {
      if (isMissing(e) || e instanceof SyntaxError) return null;
      throw e;
    }
  }

  /**
   * Makes sure the staging of an upload exists: the data file at its final (sparse) size, then the meta
   * (written atomically). Concurrent first chunks may all get here; they create the same thing, so whoever
   * is first wins and the others find it in place. Markers without a data file (a merge killed between its
   * rename and its cleanup) describe bytes that are gone: they are removed before a new data file is made.
   */
  async ensure(account: string, identifier: string, meta: UploadMeta) {
    const dir = this.dir(account, identifier);
    await fs.mkdir(dir, { recursive: true });
    const data = path.join(dir, DATA);
    if (!(await lstatOrNull(data))) {
      for (const n of await this.uploaded(account, identifier)) await this.unmark(account, identifier, n);
      try {
        const fh = await fs.open(data, 'wx', 0o644);
        try {
          await fh.truncate(meta.totalSize);
        } finally {
          await fh.close();
        }
      } catch (e) {
        if (errCode(e) !== 'EEXIST') throw e;
      }
    }
    if (await lstatOrNull(path.join(dir, 'meta.json'))) return;
    const tmp = path.join(dir, `meta.json.${randomBytes(6).toString('hex')}`);
    await fs.writeFile(tmp, JSON.stringify(meta));
    await fs.rename(tmp, path.join(dir, 'meta.json'));
  }

  async hasData(account: string, identifier: string) {
    return (await lstatOrNull(this.dataPath(account, identifier))) !== null;
  }

  /** Numbers of the complete chunks, ascending. */
  async uploaded(account: string, identifier: string): Promise<number[]> {
    try {
      const names = await fs.readdir(this.dir(account, identifier));
      return names.filter((n) => MARKER.test(n)).map(Number).sort((a, b) => a - b);
    } catch (e) {
      if (isMissing(e)) return [];
      throw e;
    }
  }

  async hasChunk(account: string, identifier: string, n: number) {
    return (await lstatOrNull(this.markerPath(account, identifier, n))) !== null;
  }

  markComplete(account: string, identifier: string, n: number) {
    return fs.writeFile(this.markerPath(account, identifier, n), '');
  }

  unmark(account: string, identifier: string, n: number) {
    return fs.rm(this.markerPath(account, identifier, n), { force: true });
  }

  async exists(account: string, identifier: string) {
    return (await lstatOrNull(this.dir(account, identifier))) !== null;
  }

  remove(account: string, identifier: string) {
    return fs.rm(this.dir(account, identifier), { recursive: true, force: true });
  }

  /** Bytes of complete chunks staged for an account: what its quota is charged for (not the sparse size). */
  async stagedBytes(account: string): Promise<number> {
    let total = 0;
    for (const identifier of await readdirOrEmpty(this.accountDir(account))) {
      const meta = await this.readMeta(account, identifier);
      if (!meta) continue;
      for (const n of await this.uploaded(account, identifier)) if (n <= meta.totalChunks) total += expectedChunkLength(n, meta);
    }
    return total;
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

async function lstatOrNull(p: string) {
  try {
    return await fs.lstat(p);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
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
