import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Streams `source` into a new file at `dest` (which must not exist), calling `guard(total)` after every
 * piece so a size or quota limit aborts mid-stream; on any failure the partial file is removed. Nothing is
 * buffered beyond the stream's own high-water mark. Hashes while writing when asked (for the instant-upload
 * index), which costs one pass of SHA-256 and no extra I/O.
 */
export async function streamToFile(
  source: Readable,
  dest: string,
  opts: { guard?: Guard; hash?: boolean } = {},
): Promise<{ bytes: number; sha256: string | null }> {
  const { meter, result } = metered(opts);
  // Opened up front (not lazily by the stream) so that, on failure, the file exists before it is removed —
  // a lazy open could otherwise create it after the removal.
  const fh = await fs.open(dest, 'wx', 0o644);
  try {
    await pipeline(source, meter, fh.createWriteStream());
  } catch (e) {
    await fh.close().catch(() => {});
    await fs.rm(dest, { force: true });
    throw e;
  }
  return result();
}

/** Called after every piece with the running total; throwing aborts the stream with that error. */
export type Guard = (total: number, piece: number) => void;

function metered(opts: { guard?: Guard; hash?: boolean }) {
  const h = opts.hash ? createHash('sha256') : null;
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      try {
        opts.guard?.(bytes, chunk.length);
      } catch (e) {
        cb(e as Error);
        return;
      }
      h?.update(chunk);
      cb(null, chunk);
    },
  });
  return { meter, result: () => ({ bytes, sha256: h ? h.digest('hex') : null }) };
}

/**
 * Streams `source` into an existing file at byte offset `start` (a chunk into an upload's data file),
 * with the same guard as streamToFile. On failure the range may hold part of the bytes; the caller's
 * chunk marker is what says whether the range is complete.
 */
export async function streamToRange(source: Readable, file: string, start: number, opts: { guard?: Guard } = {}): Promise<{ bytes: number }> {
  const { meter, result } = metered(opts);
  const fh = await fs.open(file, 'r+');
  try {
    await pipeline(source, meter, fh.createWriteStream({ start }));
  } finally {
    await fh.close().catch(() => {});
  }
  return { bytes: result().bytes };
}

/** SHA-256 of a file, read in large blocks (never whole), plus its length. */
export async function hashFile(file: string): Promise<{ bytes: number; sha256: string }> {
  const h = createHash('sha256');
  const fh = await fs.open(file, 'r');
  const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  let bytes = 0;
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (!bytesRead) break;
      h.update(buf.subarray(0, bytesRead));
      bytes += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return { bytes, sha256: h.digest('hex') };
}

/** Serialises async work per key (e.g. merges of one upload) inside this process. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  held(key: string) {
    return this.tails.has(key);
  }
}

/**
 * SHA-256 of an upload's data file, fed chunk by chunk as chunks complete in order — while the rest of
 * the upload is still on the wire — so that the merge usually only has to finish the last chunks instead
 * of reading the whole file again. State is in memory only: after a restart a new instance starts over
 * from chunk 1 (the data is on disk, so it simply catches up). Feeding is serialised per instance.
 */
export class ProgressiveHash {
  private readonly hash = createHash('sha256');
  private chain: Promise<void> = Promise.resolve();
  private failed = false;
  /** The first chunk not hashed yet. */
  next = 1;

  constructor(
    private readonly file: string,
    private readonly totalChunks: number,
    private readonly rangeOf: (n: number) => { start: number; length: number },
  ) {}

  /** Hashes every chunk from `next` on for as long as `isComplete` says it is there. */
  advance(isComplete: (n: number) => Promise<boolean>): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        while (!this.failed && this.next <= this.totalChunks && (await isComplete(this.next))) {
          await this.feed(this.rangeOf(this.next));
          this.next++;
        }
      })
      .catch(() => {
        this.failed = true;
      });
    return this.chain;
  }

  /** The digest once every chunk is in, or null if feeding failed (the caller hashes the file instead). */
  async digest(isComplete: (n: number) => Promise<boolean>): Promise<string | null> {
    await this.advance(isComplete);
    return this.failed || this.next <= this.totalChunks ? null : this.hash.digest('hex');
  }

  private async feed({ start, length }: { start: number; length: number }) {
    const fh = await fs.open(this.file, 'r');
    const buf = Buffer.allocUnsafe(Math.min(length, 4 * 1024 * 1024) || 1);
    try {
      for (let done = 0; done < length; ) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - done), start + done);
        if (!bytesRead) throw new Error('short read');
        this.hash.update(buf.subarray(0, bytesRead));
        done += bytesRead;
      }
    } finally {
      await fh.close();
    }
  }
}
