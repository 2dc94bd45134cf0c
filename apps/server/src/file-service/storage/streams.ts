import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { hashThread } from './hash-thread';

/**
 * Streams `source` into a new file at `dest` (which must not exist), calling `guard(total)` after every
 * piece so a size or quota limit aborts mid-stream; on any failure the partial file is removed. Nothing is
 * buffered beyond two 1 MiB write batches (see writeAt). Hashes while writing when asked (for the instant-upload
 * index), which costs one pass of SHA-256 and no extra I/O.
 */
export async function streamToFile(
  source: Readable,
  dest: string,
  opts: { guard?: Guard; hash?: boolean } = {},
): Promise<{ bytes: number; sha256: string | null }> {
  const h = opts.hash ? createHash('sha256') : null;
  // Opened up front (not lazily by the stream) so that, on failure, the file exists before it is removed —
  // a lazy open could otherwise create it after the removal.
  const fh = await fs.open(dest, 'wx', 0o644);
  let bytes: number;
  try {
    bytes = await writeAt(source, fh, 0, opts.guard, h);
    await fh.close();
  } catch (e) {
    await fh.close().catch(() => {});
    await fs.rm(dest, { force: true });
    throw e;
  }
  return { bytes, sha256: h ? h.digest('hex') : null };
}

/** Called after every piece with the running total; throwing aborts the stream with that error. */
export type Guard = (total: number, piece: number) => void;

/**
 * Streams `source` into an existing file at byte offset `start` (a chunk into an upload's data file),
 * with the same guard as streamToFile; writes of concurrent calls for the same file are queued. On failure the range may hold part of the bytes; the caller's
 * chunk marker is what says whether the range is complete.
 */
export async function streamToRange(source: Readable, file: string, start: number, opts: { guard?: Guard } = {}): Promise<{ bytes: number }> {
  const fh = await fs.open(file, 'r+');
  try {
    return { bytes: await writeAt(source, fh, start, opts.guard, null, file) };
  } finally {
    await fh.close().catch(() => {});
  }
}

/** Incoming pieces (64 KiB socket reads) are gathered into batches of this size, one positional write each. */
export const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * The write loop behind streamToFile/streamToRange: pieces are checked by `guard`, hashed when asked, and
 * copied into a pooled batch buffer that is written with one positional write when full, one batch in
 * flight while the next one fills — ~16× fewer thread-pool round trips than a file WriteStream (one write
 * per socket read) and no Transform in between. Copying (~0.05 CPU-s per GiB) lets every socket buffer
 * die young: kept in a batch until its write completes, many of them outlived a scavenge, were promoted,
 * and 1 GiB of promoted external memory per GiB uploaded made V8 run a full mark-compact every few chunks.
 * Reading stops while a full batch waits for the previous write (backpressure), so two batches are held
 * per stream. On failure the source is destroyed (leaving the for-await does that) and the write still in
 * flight is waited for, so the caller can close the handle safely.
 */
async function writeAt(source: Readable, fh: fs.FileHandle, start: number, guard: Guard | undefined, hash: Hash | null, shared: string | null = null): Promise<number> {
  let bytes = 0;
  let pos = start;
  let buf = takeBatchBuffer();
  let fill = 0;
  let inflight: Promise<void> | null = null;
  let inflightBuf: Buffer | null = null;
  const submit = async () => {
    if (inflight) {
      await inflight;
      giveBackBatchBuffer(inflightBuf!);
      inflight = inflightBuf = null;
    }
    const at = pos;
    pos += fill;
    inflightBuf = buf;
    const [b, len] = [buf, fill];
    inflight = oneWriterAtATime(shared, () => writeFully(fh, b, len, at));
    // Observed by the next submit or at the end; this only keeps it from counting as unhandled meanwhile.
    inflight.catch(() => {});
    buf = takeBatchBuffer();
    fill = 0;
  };
  try {
    for await (const piece of source as AsyncIterable<Buffer>) {
      bytes += piece.length;
      guard?.(bytes, piece.length);
      hash?.update(piece);
      for (let off = 0; off < piece.length; ) {
        const n = piece.copy(buf, fill, off);
        fill += n;
        off += n;
        if (fill === buf.length) await submit();
      }
    }
    if (fill) await submit();
    if (inflight) await inflight;
  } catch (e) {
    if (inflight) await (inflight as Promise<void>).catch(() => {});
    throw e;
  } finally {
    // A buffer whose write failed may still be read by nobody now: both go back to the pool.
    giveBackBatchBuffer(buf);
    if (inflightBuf) giveBackBatchBuffer(inflightBuf);
  }
  return bytes;
}

/**
 * Writes into one shared file (an upload's data file, several chunks streaming at once) are issued one at
 * a time: the kernel serialises writers of an inode anyway (i_rwsem), and concurrent thread-pool writers
 * spent ~0.3 CPU-s per GiB spinning on that lock; queued here they wait for free.
 */
const writeTails = new Map<string, Promise<void>>();
function oneWriterAtATime(key: string | null, write: () => Promise<void>): Promise<void> {
  if (!key) return write();
  const run = (writeTails.get(key) ?? Promise.resolve()).then(write);
  const tail = run.catch(() => {});
  writeTails.set(key, tail);
  void tail.then(() => {
    if (writeTails.get(key) === tail) writeTails.delete(key);
  });
  return run;
}

async function writeFully(fh: fs.FileHandle, buf: Buffer, length: number, at: number): Promise<void> {
  for (let done = 0; done < length; ) {
    const { bytesWritten } = await fh.write(buf, done, length - done, at + done);
    if (bytesWritten <= 0) throw new Error('short write');
    done += bytesWritten;
  }
}

/** Batch buffers, reused across requests (allocated once, they live in the old generation). */
const BATCH_BUFFERS_KEPT = 8;
const batchBuffers: Buffer[] = [];
function takeBatchBuffer(): Buffer {
  return batchBuffers.pop() ?? Buffer.allocUnsafe(WRITE_BATCH_BYTES);
}
function giveBackBatchBuffer(b: Buffer) {
  if (batchBuffers.length < BATCH_BUFFERS_KEPT && !batchBuffers.includes(b)) batchBuffers.push(b);
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
 * of reading the whole file again. The state and the reading live in the hash thread (hash-thread.ts), off
 * the event loop that receives the chunks. State is in memory only: after a restart (or if the thread
 * dies) a new instance starts over from chunk 1 (the data is on disk, so it simply catches up). Feeding is
 * serialised per instance; `dispose` must be called when an instance is dropped before its digest.
 */
export class ProgressiveHash {
  private static ids = 0;
  private readonly id = ++ProgressiveHash.ids;
  private readonly generation = hashThread.generation;
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
          await this.call({ op: 'feed', id: this.id, file: this.file, ...this.rangeOf(this.next) });
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
    if (this.failed || this.next <= this.totalChunks) return null;
    this.failed = true; // the thread's state is finalised and gone
    return (await this.call({ op: 'digest', id: this.id }).catch(() => null)) ?? null;
  }

  /** Frees the thread's state of an instance that will not reach its digest. */
  dispose() {
    if (this.failed) return;
    this.failed = true;
    void this.chain.then(() => hashThread.call({ op: 'drop', id: this.id }).catch(() => {}));
  }

  /** A call on this instance's state, refused once the thread holding it is gone or the instance is done. */
  private async call(req: Parameters<typeof hashThread.call>[0]) {
    if (this.failed && req.op === 'feed') throw new Error('hash disposed');
    if (hashThread.generation !== this.generation) throw new Error('hash thread restarted');
    return hashThread.call(req);
  }
}
