import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ErrorCode, type UploadShape } from '@suanli/contracts';
import { AppError } from '../../errors';
import { spaceKey, type FileUser } from '../identity';
import type { AccountFs, OpenedFile, Segs, Staging, WalkedEntry } from '../storage/account-fs';
import type { RawStat } from '../storage/beneath';
import type { AccountFsFactory } from '../storage/spaces';
import type { Guard } from '../storage/write';
import { FrameReader, Kind, sendData, writeJson, type WireError } from './frames';

/** Workers one account may have at once (each serves one call at a time); more callers wait. */
const PER_ACCOUNT_MAX = 12;
/** An idle worker is ended after this long (its process exits). */
const IDLE_MS = 30_000;

function fromWire(e: WireError): Error {
  if (e.app) return new AppError(e.app.code, e.app.message, e.app.httpStatus);
  return Object.assign(new Error(e.message), { code: e.errno });
}

/** Pieces of `source` after `guard` has seen each (limits run here, before bytes cross to the worker). */
async function* guarded(source: AsyncIterable<Buffer>, guard?: Guard): AsyncIterable<Buffer> {
  let total = 0;
  for await (const piece of source) {
    total += piece.length;
    guard?.(total, piece.length);
    yield piece;
  }
}

/** One connection to a worker running as the account; one call at a time. */
class Conn {
  readonly reader: FrameReader;
  broken = false;
  idleTimer: NodeJS.Timeout | null = null;

  constructor(readonly socket: net.Socket) {
    this.reader = new FrameReader(socket);
    socket.once('close', () => (this.broken = true));
  }

  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` alone on this connection: frames of two calls must never interleave. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => {});
    return run;
  }

  call<T>(method: string, args: unknown[], input?: AsyncIterable<Buffer>): Promise<T> {
    return this.exclusive(() => this.callNow<T>(method, args, input));
  }

  private async callNow<T>(method: string, args: unknown[], input?: AsyncIterable<Buffer>): Promise<T> {
    try {
      await writeJson(this.socket, Kind.REQ, { method, args });
      let sendError: unknown = null;
      if (input) await sendData(this.socket, input).catch((e: unknown) => (sendError = e));
      const res = JSON.parse((await this.reader.next()).payload.toString()) as { result?: T; error?: WireError };
      if (sendError) throw sendError;
      if (res.error) throw fromWire(res.error);
      return res.result as T;
    } catch (e) {
      if (!(e instanceof AppError) && this.socket.destroyed) this.broken = true;
      throw e;
    }
  }

  /** A call that answers bytes: RES, then DATA… END, as a stream. Cutting the stream short ends the worker. */
  stream(method: string, args: unknown[]): Readable {
    return Readable.from(this.streamFrames(method, args), { objectMode: false });
  }

  private async *streamFrames(method: string, args: unknown[]): AsyncGenerator<Buffer> {
    let done = false;
    let unlock!: () => void;
    // The connection is held for the whole answer, not just the request.
    await new Promise<void>((started) => void this.exclusive(() => new Promise<void>((r) => ((unlock = r), started()))));
    try {
      await this.callNow(method, args);
      for (;;) {
        const f = await this.reader.next();
        if (f.kind === Kind.END) break;
        if (f.kind !== Kind.DATA) throw new Error(`unexpected frame ${f.kind}`);
        yield f.payload;
      }
      done = true;
    } finally {
      // A reader that stopped early leaves frames on the wire: this connection cannot be reused.
      if (!done) this.close();
      unlock();
    }
  }

  close() {
    this.broken = true;
    this.socket.destroy();
  }
}

/**
 * Real POSIX accounts: every operation on an account's space runs in a worker process started with the
 * account's uid/gid by the privileged launcher (launcher.ts), reached over a Unix socket the launcher hands
 * to the worker. This process needs no privilege at all. Workers are pooled per account and end when idle.
 * See docs/adr/0004-files-as-the-user.md.
 */
export class WorkerAccounts implements AccountFsFactory {
  private readonly idle = new Map<string, Conn[]>();
  private readonly count = new Map<string, number>();
  private readonly waiting = new Map<string, ((c: Conn | null) => void)[]>();
  private closed = false;

  constructor(private readonly opts: { launcherSocket: string; connectTimeoutMs?: number }) {}

  async open(user: FileUser): Promise<AccountFs> {
    return new WorkerAccountFs(user, await this.acquire(user), this);
  }

  /** Workers are pooled per space: the account's home, or the account in one team's folder (another root). */
  async acquire(user: FileUser): Promise<Conn> {
    const account = spaceKey(user);
    if (this.closed) throw new AppError(ErrorCode.INTERNAL_FAILED, '文件服务正在关闭');
    const idle = this.idle.get(account) ?? [];
    for (let c = idle.pop(); c; c = idle.pop()) {
      if (c.idleTimer) clearTimeout(c.idleTimer);
      if (!c.broken) return c;
      this.forget(account);
    }
    if ((this.count.get(account) ?? 0) >= PER_ACCOUNT_MAX) {
      // Woken with a connection someone released, or with null when one ended: then try again.
      const got = await new Promise<Conn | null>((resolve) => this.waiting.set(account, [...(this.waiting.get(account) ?? []), resolve]));
      return got ?? this.acquire(user);
    }
    this.count.set(account, (this.count.get(account) ?? 0) + 1);
    try {
      return await this.connect(user);
    } catch (e) {
      this.forget(account);
      throw e;
    }
  }

  release(account: string, c: Conn) {
    if (c.broken || this.closed) {
      c.close();
      this.forget(account);
      this.waiting.get(account)?.shift()?.(null);
      return;
    }
    const next = this.waiting.get(account)?.shift();
    if (next) return next(c);
    c.idleTimer = setTimeout(() => {
      const list = this.idle.get(account) ?? [];
      const i = list.indexOf(c);
      if (i >= 0) list.splice(i, 1);
      c.close();
      this.forget(account);
    }, IDLE_MS);
    c.idleTimer.unref();
    this.idle.set(account, [...(this.idle.get(account) ?? []), c]);
  }

  private forget(account: string) {
    const n = (this.count.get(account) ?? 1) - 1;
    if (n > 0) this.count.set(account, n);
    else this.count.delete(account);
  }

  /** Asks the launcher for a worker of `account`; the worker answers "ready" on this very connection. */
  private connect(user: FileUser): Promise<Conn> {
    const account = user.account;
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.opts.launcherSocket);
      const fail = (e: Error) => {
        socket.destroy();
        reject(new AppError(ErrorCode.INTERNAL_FAILED, `无法以集群账号 ${account} 访问存储：${e.message}`));
      };
      const timer = setTimeout(() => fail(new Error('启动超时')), this.opts.connectTimeoutMs ?? 20_000);
      socket.once('error', (e) => {
        clearTimeout(timer);
        fail(e);
      });
      socket.once('connect', () => {
        // A team's folder is a root the launcher checks itself (it exists, is a directory); the kernel and the
        // folder's ACL decide whether the account gets in (ADR 0018).
        socket.write(`${JSON.stringify(user.team ? { account, team: user.team } : { account })}\n`);
        const conn = new Conn(socket);
        conn.reader.next().then(
          (f) => {
            clearTimeout(timer);
            const msg = JSON.parse(f.payload.toString()) as { result?: { ready: boolean }; error?: WireError };
            if (f.kind !== Kind.RES || !msg.result?.ready) return fail(new Error(msg.error?.message ?? '启动失败'));
            resolve(conn);
          },
          (e: Error) => {
            clearTimeout(timer);
            fail(e);
          },
        );
      });
    });
  }

  async close() {
    this.closed = true;
    for (const list of this.idle.values()) for (const c of list) c.close();
    this.idle.clear();
  }
}

/** An account's space in a worker: the AccountFs calls forwarded over one connection (see worker.ts). */
class WorkerAccountFs implements AccountFs {
  readonly staging: Staging;
  private released = false;

  constructor(
    private readonly user: FileUser,
    private readonly conn: Conn,
    private readonly pool: WorkerAccounts,
  ) {
    const call = <T>(m: string, ...args: unknown[]) => this.conn.call<T>(`staging.${m}`, args);
    const stagingRoot = path.join(path.dirname(path.dirname(user.homeDir)), '.uploads', user.account);
    this.staging = {
      dataPath: (id: string) => path.join(stagingRoot, id, 'data'),
      readMeta: (id: string) => call<UploadShape | null>('readMeta', id),
      ensure: (id: string, meta: UploadShape) => call<void>('ensure', id, meta),
      hasData: (id: string) => call<boolean>('hasData', id),
      dataSize: (id: string) => call<number | null>('dataSize', id),
      uploaded: (id: string) => call<number[]>('uploaded', id),
      hasChunk: (id: string, n: number) => call<boolean>('hasChunk', id, n),
      markComplete: (id: string, n: number) => call<void>('markComplete', id, n),
      unmark: (id: string, n: number) => call<void>('unmark', id, n),
      writeRange: (id: string, offset: number, source: AsyncIterable<Buffer>, guard: Guard) =>
        this.conn.call<number>('staging.writeRange', [id, offset], guarded(source, guard)),
      hashData: (id: string) => call<string>('hashData', id),
      exists: (id: string) => call<boolean>('exists', id),
      remove: (id: string) => call<void>('remove', id),
      stagedBytes: () => call<number>('stagedBytes'),
      identifiers: () => call<string[]>('identifiers'),
      cleanup: async (now: number, busy: (id: string) => boolean, maxAgeMs?: number) => {
        const ids = await call<string[]>('identifiers');
        return call<string[]>('cleanup', now, ids.filter(busy), maxAgeMs);
      },
    };
  }

  list(dir: Segs) {
    return this.conn.call<{ name: string; stat: RawStat }[]>('list', [dir]);
  }
  stat(p: Segs) {
    return this.conn.call<RawStat | null>('stat', [p]);
  }
  mkdir(p: Segs) {
    return this.conn.call<RawStat>('mkdir', [p]);
  }
  ensureDir(p: Segs, mode?: number) {
    return this.conn.call<void>('ensureDir', [p, mode]);
  }
  writeFile(p: Segs, source: AsyncIterable<Buffer>, opts: { hash?: boolean; guard?: Guard; mode?: number }) {
    return this.conn.call<{ bytes: number; sha256: string | null; stat: RawStat }>('writeFile', [p, { hash: opts.hash, mode: opts.mode }], guarded(source, opts.guard));
  }
  giveToAccount(p: Segs) {
    return this.conn.call<void>('giveToAccount', [p]);
  }
  remove(p: Segs) {
    return this.conn.call<void>('remove', [p]);
  }
  rename(from: Segs, to: Segs) {
    return this.conn.call<RawStat>('rename', [from, to]);
  }
  copy(from: Segs, to: Segs) {
    return this.conn.call<RawStat>('copy', [from, to]);
  }
  treeBytes(p: Segs) {
    return this.conn.call<number>('treeBytes', [p]);
  }
  walk(p: Segs) {
    return this.conn.call<WalkedEntry[]>('walk', [p]);
  }
  commitStaged(identifier: string, p: Segs) {
    return this.conn.call<RawStat>('commitStaged', [identifier, p]);
  }

  /** A file stays open in a worker of its own until closed (reads may come later, e.g. a zip's turn). */
  async openFile(p: Segs): Promise<OpenedFile> {
    const conn = await this.pool.acquire(this.user);
    let stat: RawStat;
    try {
      stat = await conn.call<RawStat>('openFile', [p]);
    } catch (e) {
      this.pool.release(spaceKey(this.user), conn);
      throw e;
    }
    let tail: Promise<unknown> = Promise.resolve();
    let open = 0;
    let closing = false;
    let released = false;
    const finish = async () => {
      if (released) return;
      released = true;
      await conn.call('file.close', []).catch(() => conn.close());
      this.pool.release(spaceKey(this.user), conn);
    };
    return {
      stat,
      read: (start, end) => {
        open++;
        // Reads on one connection are served one after another.
        const prev = tail;
        const out = Readable.from(
          (async function* () {
            await prev.catch(() => {});
            yield* conn.stream('file.read', [start, end]);
          })(),
        );
        tail = new Promise((r) => out.once('close', r));
        out.once('close', () => {
          if (--open === 0 && closing) void finish();
        });
        return out;
      },
      close: async () => {
        closing = true;
        if (open === 0) await finish();
      },
    };
  }

  release() {
    if (this.released) return;
    this.released = true;
    this.pool.release(spaceKey(this.user), this.conn);
  }
}
