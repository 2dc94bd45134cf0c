import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { expectedChunkLength, type UploadShape } from '@suanli/contracts';
import { errCode, isMissing, lstatAt, openFileAt, removeAt, WalkError, type Beneath, type DirHandle } from './beneath';
import { hashHandle, writeAt, type Guard } from './write';

/** Abandoned uploads (no write for this long) are removed by `cleanup`. */
export const STALE_UPLOAD_MS = 24 * 3600_000;

/**
 * What `meta.json` holds: the upload's shape and, from issue 22 on, the file's name, its target folder and
 * when its first chunk arrived (the upload panel lists interrupted uploads by them; older stagings lack them).
 */
export interface StagedMeta extends UploadShape {
  filename?: string;
  path?: string;
  /** `team:<id>` for an upload into a team's folder (its staging is the account's, shared with the home). */
  space?: string;
  startedAt?: number;
}

const MARKER = /^\d+$/;
const DATA = 'data';
const O = fs.constants;

/**
 * One account's staged uploads: `<staging root>/<identifier>/` holds `meta.json`, `data` — one sparse file
 * of the final size into which every chunk is streamed at its own offset — and an empty marker file `<n>`
 * per complete chunk. The staging root is `<storageRoot>/.uploads/<account>`, owned by the account when
 * accounts are real POSIX users (docs/adr/0004-files-as-the-user.md); every access goes through descriptors
 * beneath it (beneath.ts).
 *
 * Why one data file rather than a file per chunk: every byte is written to disk exactly once, and the merge
 * is a verification pass plus a rename instead of a second full copy (which halved throughput on large
 * files; see docs/plan/3.md). A marker is created only after its whole range was written by one request,
 * and removed before a re-send overwrites the range, so "marker n exists" means "chunk n is complete" across
 * crashes, kills and concurrent re-sends; resume needs nothing but readdir.
 */
export class ChunkStore {
  constructor(readonly root: Beneath) {}

  /** The data file's path, for the hash thread (which reads it back; see progressive-hash.ts). */
  dataPath(identifier: string) {
    return path.join(this.root.root, identifier, DATA);
  }

  /** Runs `fn` in the upload's directory; WalkError('missing') when there is none. */
  withUpload<T>(identifier: string, fn: (dir: DirHandle) => Promise<T>, create = false): Promise<T> {
    return this.root.withDir([identifier], fn, { create });
  }

  /** Like withUpload, but `fallback` when the upload does not exist. */
  private async ifUpload<T>(identifier: string, fn: (dir: DirHandle) => Promise<T>, fallback: T): Promise<T> {
    try {
      return await this.withUpload(identifier, fn);
    } catch (e) {
      if (e instanceof WalkError || isMissing(e)) return fallback;
      throw e;
    }
  }

  async readMeta(identifier: string): Promise<StagedMeta | null> {
    return this.ifUpload(
      identifier,
      async (d) => {
        try {
          const fh = await openFileAt(d, 'meta.json');
          try {
            return JSON.parse(await fh.readFile('utf8')) as StagedMeta;
          } finally {
            await fh.close();
          }
        } catch (e) {
          if (e instanceof WalkError || e instanceof SyntaxError) return null;
          throw e;
        }
      },
      null,
    );
  }

  /**
   * Makes sure the staging of an upload exists: the data file at its final (sparse) size, then the meta
   * (written atomically). Concurrent first chunks may all get here; they create the same thing, so whoever
   * is first wins and the others find it in place. Markers without a data file (a merge killed between its
   * rename and its cleanup) describe bytes that are gone: they are removed before a new data file is made.
   */
  async ensure(identifier: string, meta: StagedMeta) {
    await this.withUpload(
      identifier,
      async (d) => {
        if (!(await lstatAt(d, DATA))) {
          for (const n of await markers(d)) await fsp.rm(d.at(String(n)), { force: true });
          try {
            const fh = await fsp.open(d.at(DATA), O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o600);
            try {
              await fh.truncate(meta.totalSize);
            } finally {
              await fh.close();
            }
          } catch (e) {
            if (errCode(e) !== 'EEXIST') throw e;
          }
        }
        if (await lstatAt(d, 'meta.json')) return;
        const tmp = `meta.json.${randomBytes(6).toString('hex')}`;
        const fh = await fsp.open(d.at(tmp), O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o600);
        try {
          await fh.writeFile(JSON.stringify(meta));
        } finally {
          await fh.close();
        }
        await fsp.rename(d.at(tmp), d.at('meta.json'));
      },
      true,
    );
  }

  async hasData(identifier: string) {
    return this.ifUpload(identifier, async (d) => (await lstatAt(d, DATA))?.type === 'file', false);
  }

  /** Size of the data file (null when it is gone). */
  async dataSize(identifier: string): Promise<number | null> {
    return this.ifUpload(identifier, async (d) => {
      const st = await lstatAt(d, DATA);
      return st?.type === 'file' ? st.size : null;
    }, null);
  }

  /** Numbers of the complete chunks, ascending. */
  async uploaded(identifier: string): Promise<number[]> {
    return this.ifUpload(identifier, markers, []);
  }

  async hasChunk(identifier: string, n: number) {
    return this.ifUpload(identifier, async (d) => (await lstatAt(d, String(n))) !== null, false);
  }

  async markComplete(identifier: string, n: number) {
    await this.withUpload(identifier, async (d) => {
      const fh = await fsp.open(d.at(String(n)), O.O_WRONLY | O.O_CREAT | O.O_NOFOLLOW, 0o600);
      await fh.close();
    });
  }

  async unmark(identifier: string, n: number) {
    await this.ifUpload(identifier, (d) => fsp.rm(d.at(String(n)), { force: true }), undefined);
  }

  /** Streams one chunk into the data file at `offset` (the file opened without following links). */
  async writeRange(identifier: string, offset: number, source: AsyncIterable<Buffer>, guard: Guard): Promise<number> {
    return this.withUpload(identifier, async (d) => {
      const fh = await openFileAt(d, DATA, O.O_WRONLY);
      try {
        return (await writeAt(source, fh, offset, { guard, shared: this.dataPath(identifier) })).bytes;
      } finally {
        await fh.close().catch(() => {});
      }
    });
  }

  /** SHA-256 of the whole data file (when the running hash could not be used). */
  async hashData(identifier: string): Promise<string> {
    return this.withUpload(identifier, async (d) => {
      const fh = await openFileAt(d, DATA);
      try {
        return (await hashHandle(fh)).sha256;
      } finally {
        await fh.close();
      }
    });
  }

  async exists(identifier: string) {
    return this.ifUpload(identifier, async () => true, false);
  }

  async remove(identifier: string) {
    await this.root.withDir([], (d) => removeAt(d, identifier)).catch((e: unknown) => {
      if (!(e instanceof WalkError) && !isMissing(e)) throw e;
    });
  }

  /** Bytes of complete chunks staged: what the account's quota is charged for (not the sparse size). */
  async stagedBytes(): Promise<number> {
    let total = 0;
    for (const identifier of await this.identifiers()) {
      const meta = await this.readMeta(identifier);
      if (!meta) continue;
      for (const n of await this.uploaded(identifier)) if (n <= meta.totalChunks) total += expectedChunkLength(n, meta);
    }
    return total;
  }

  /**
   * Removes uploads whose last write (the directory or any file in it) is older than `maxAgeMs` at `now`,
   * skipping the ones `busy` says are being written or merged. Returns the removed identifiers.
   */
  async cleanup(now: number, busy: (identifier: string) => boolean, maxAgeMs = STALE_UPLOAD_MS): Promise<string[]> {
    const removed: string[] = [];
    for (const identifier of await this.identifiers()) {
      if (busy(identifier)) continue;
      const last = await this.ifUpload(identifier, lastWrite, null);
      if (last === null || now - last <= maxAgeMs) continue;
      await this.remove(identifier);
      removed.push(identifier);
    }
    return removed;
  }

  /** The identifiers staged (directories below the root). */
  async identifiers(): Promise<string[]> {
    try {
      return await this.root.withDir([], (d) => fsp.readdir(d.at()));
    } catch (e) {
      if (isMissing(e) || errCode(e) === 'ENOENT') return [];
      throw e;
    }
  }
}

async function markers(d: DirHandle): Promise<number[]> {
  const names = await fsp.readdir(d.at());
  return names.filter((n) => MARKER.test(n)).map(Number).sort((a, b) => a - b);
}

async function lastWrite(d: DirHandle): Promise<number> {
  // stat, not lstat: /proc/self/fd/<n> itself is a (magic) link; its target is the directory.
  let latest = (await fsp.stat(d.at())).mtimeMs;
  for (const name of await fsp.readdir(d.at())) {
    const st = await lstatAt(d, name);
    if (st) latest = Math.max(latest, st.mtimeMs);
  }
  return latest;
}
