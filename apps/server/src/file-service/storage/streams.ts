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
  opts: { guard?: (total: number, piece: number) => void; hash?: boolean } = {},
): Promise<{ bytes: number; sha256: string | null }> {
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
  return { bytes, sha256: h ? h.digest('hex') : null };
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
