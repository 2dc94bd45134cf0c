import { createHash } from 'node:crypto';
import type fs from 'node:fs/promises';
import { finished, Readable } from 'node:stream';

/** Called after every piece with the running total; throwing aborts the stream with that error. */
export type Guard = (total: number, piece: number) => void;

/** Incoming pieces (64 KiB socket reads) are gathered into batches of this size, one positional write each. */
export const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Streams `source` into an open file from byte `start`: pieces are checked by `guard`, hashed when asked, and
 * copied into a pooled batch buffer that is written with one positional write when full, one batch in
 * flight while the next one fills — ~16× fewer thread-pool round trips than a file WriteStream (one write
 * per socket read) and no Transform in between. Copying (~0.05 CPU-s per GiB) lets every socket buffer
 * die young: kept in a batch until its write completes, many of them outlived a scavenge, were promoted,
 * and 1 GiB of promoted external memory per GiB uploaded made V8 run a full mark-compact every few chunks.
 * Reading stops while a full batch waits for the previous write (backpressure), so two batches are held
 * per stream. On failure the source is destroyed (leaving the for-await does that) and the write still in
 * flight is waited for, so the caller can close the handle safely. `shared` names a file several streams
 * write at once (an upload's data file): their writes are queued (see oneWriterAtATime). Hashes while
 * writing when asked (for the instant-upload index), one pass of SHA-256 and no extra I/O.
 */
export async function writeAt(
  source: AsyncIterable<Buffer>,
  fh: fs.FileHandle,
  start: number,
  opts: { guard?: Guard; hash?: boolean; shared?: string },
): Promise<{ bytes: number; sha256: string | null }> {
  const { guard } = opts;
  const shared = opts.shared ?? null;
  const hash = opts.hash ? createHash('sha256') : null;
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
    for await (const piece of source instanceof Readable ? piecesOf(source) : source) {
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
  return { bytes, sha256: hash ? hash.digest('hex') : null };
}

/**
 * The pieces of a Node stream as they arrive (each socket read's own Buffer), at most ~`high` bytes queued
 * before the stream is paused. Not `for await` on the stream: its iterator calls `read()`, which joins
 * everything buffered into one new Buffer — while a batch write was in flight, every byte that arrived
 * meanwhile was copied once more before writeAt copied it into its batch (bench/sync's receiver profile:
 * Readable's `fromList` and `Buffer.concat` ~8 % of its CPU, and the garbage of the joined buffers). Leaving
 * early (a guard threw, a write failed) destroys the stream, as `for await` does; a stream that closes
 * without ending throws (premature close).
 */
export async function* piecesOf(stream: Readable, high = WRITE_BATCH_BYTES): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const onData = (piece: Buffer) => {
    queue.push(piece);
    queued += piece.length;
    if (queued >= high) stream.pause();
    wake?.();
  };
  stream.on('data', onData);
  // A 'data' listener starts the flow unless someone paused the stream before: start it either way.
  stream.resume();
  const stopWatching = finished(stream, (err) => {
    if (err) failure = err;
    else ended = true;
    wake?.();
  });
  try {
    for (;;) {
      const piece = queue.shift();
      if (piece) {
        queued -= piece.length;
        if (queued < high && stream.isPaused()) stream.resume();
        yield piece;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  } finally {
    stream.off('data', onData);
    stopWatching();
    if (!ended) stream.destroy();
  }
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



/** SHA-256 of an open file, read from the start in large blocks (never whole), plus its length. */
export async function hashHandle(fh: fs.FileHandle): Promise<{ bytes: number; sha256: string }> {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  let bytes = 0;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, bytes);
    if (!bytesRead) break;
    h.update(buf.subarray(0, bytesRead));
    bytes += bytesRead;
  }
  return { bytes, sha256: h.digest('hex') };
}
