import type { Socket } from 'node:net';

/**
 * The wire between the file service and an account worker (one Unix socket per worker, one call at a time):
 * frames of `[u32 length][u8 kind][payload]`. A call is REQ (JSON), then — for calls that take bytes —
 * DATA… and END (or ABORT when the sender's source failed); the answer is RES (JSON), then — for calls that
 * give bytes — DATA… and END.
 */
export const enum Kind {
  REQ = 1,
  RES = 2,
  DATA = 3,
  END = 4,
  ABORT = 5,
}

export interface Frame {
  kind: Kind;
  payload: Buffer;
}

const HEADER = 5;
/** Bytes queued unread before the socket is paused (backpressure towards the sender). */
const HIGH_WATER = 4 * 1024 * 1024;

/** Writes one frame; resolves when the socket can take more (backpressure). */
export function writeFrame(socket: Socket, kind: Kind, payload: Buffer = Buffer.alloc(0)): Promise<void> {
  const header = Buffer.allocUnsafe(HEADER);
  header.writeUInt32BE(payload.length, 0);
  header.writeUInt8(kind, 4);
  socket.write(header);
  const flushed = socket.write(payload);
  if (flushed || socket.destroyed) return socket.destroyed ? Promise.reject(new Error('连接已断开')) : Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      socket.off('close', closed);
      resolve();
    };
    const closed = () => {
      socket.off('drain', done);
      reject(new Error('连接已断开'));
    };
    socket.once('drain', done);
    socket.once('close', closed);
  });
}

export const writeJson = (socket: Socket, kind: Kind.REQ | Kind.RES, value: unknown) => writeFrame(socket, kind, Buffer.from(JSON.stringify(value)));

/** Reads frames from a socket in order; `next()` waits for the next one (rejects once the socket is closed). */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private readonly queue: Frame[] = [];
  private queued = 0;
  private waiter: { resolve: (f: Frame) => void; reject: (e: Error) => void } | null = null;
  private closed: Error | null = null;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const close = () => this.fail(new Error('连接已断开'));
    socket.on('close', close);
    socket.on('error', close);
  }

  next(): Promise<Frame> {
    const f = this.queue.shift();
    if (f) {
      this.queued -= f.payload.length;
      if (this.queued < HIGH_WATER && this.socket.isPaused()) this.socket.resume();
      return Promise.resolve(f);
    }
    if (this.closed) return Promise.reject(this.closed);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private onData(chunk: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.buf.length >= HEADER) {
      const len = this.buf.readUInt32BE(0);
      if (this.buf.length < HEADER + len) break;
      const frame = { kind: this.buf.readUInt8(4) as Kind, payload: this.buf.subarray(HEADER, HEADER + len) };
      this.buf = this.buf.subarray(HEADER + len);
      const w = this.waiter;
      if (w) {
        this.waiter = null;
        w.resolve(frame);
      } else {
        this.queue.push(frame);
        this.queued += frame.payload.length;
      }
    }
    if (this.queued >= HIGH_WATER) this.socket.pause();
  }

  private fail(e: Error) {
    this.closed ??= e;
    const w = this.waiter;
    this.waiter = null;
    w?.reject(e);
  }
}

/**
 * The DATA frames up to END as an async iterable of buffers; ABORT (the sender's source failed) throws.
 * A consumer that stops early does not end it (`return` is a no-op): `drain()` then reads the rest, so the
 * next request starts on a frame boundary.
 */
export function dataFrames(reader: FrameReader): AsyncIterable<Buffer> & { drain(): Promise<void> } {
  let ended = false;
  const next = async (): Promise<IteratorResult<Buffer>> => {
    if (ended) return { done: true, value: undefined };
    const f = await reader.next();
    if (f.kind === Kind.DATA) return { done: false, value: f.payload };
    ended = true;
    if (f.kind === Kind.END) return { done: true, value: undefined };
    if (f.kind === Kind.ABORT) throw new Error('上传已中止');
    throw new Error(`unexpected frame ${f.kind}`);
  };
  const iterator: AsyncIterator<Buffer> = { next, return: async () => ({ done: true, value: undefined }) };
  return {
    [Symbol.asyncIterator]: () => iterator,
    drain: async () => {
      try {
        while (!(await next()).done);
      } catch {
        // ABORT: the sender already knows why.
      }
    },
  };
}

/** Sends `source` as DATA frames then END; if `source` fails, sends ABORT and rethrows. */
export async function sendData(socket: Socket, source: AsyncIterable<Buffer>): Promise<void> {
  try {
    for await (const piece of source) await writeFrame(socket, Kind.DATA, piece);
  } catch (e) {
    if (!socket.destroyed) await writeFrame(socket, Kind.ABORT).catch(() => {});
    throw e;
  }
  await writeFrame(socket, Kind.END);
}

/** An error crossing the wire: AppErrors keep code, message and HTTP status; others keep message and errno. */
export interface WireError {
  app?: { code: number; message: string; httpStatus: number };
  message: string;
  errno?: string;
}
