import type { Socket } from 'node:net';
import { AppError } from '../../errors';
import type { LocalAccountFs, OpenedFile } from '../storage/account-fs';
import { dataFrames, FrameReader, Kind, writeFrame, writeJson, type WireError } from './frames';

/** Calls that only take and give JSON: `name` → how the worker's LocalAccountFs runs it. */
const plain: Record<string, (fs: LocalAccountFs, args: any[]) => Promise<unknown>> = {
  list: (fs, [p]) => fs.list(p),
  stat: (fs, [p]) => fs.stat(p),
  mkdir: (fs, [p]) => fs.mkdir(p),
  ensureDir: (fs, [p, mode]) => fs.ensureDir(p, typeof mode === 'number' ? mode & 0o777 : undefined),
  remove: (fs, [p]) => fs.remove(p),
  giveToAccount: (fs, [p]) => fs.giveToAccount(p),
  rename: (fs, [a, b]) => fs.rename(a, b),
  copy: (fs, [a, b]) => fs.copy(a, b),
  treeBytes: (fs, [p]) => fs.treeBytes(p),
  walk: (fs, [p]) => fs.walk(p),
  commitStaged: (fs, [id, p]) => fs.commitStaged(id, p),
  'staging.readMeta': (fs, [id]) => fs.staging.readMeta(id),
  'staging.ensure': (fs, [id, meta]) => fs.staging.ensure(id, meta),
  'staging.hasData': (fs, [id]) => fs.staging.hasData(id),
  'staging.dataSize': (fs, [id]) => fs.staging.dataSize(id),
  'staging.uploaded': (fs, [id]) => fs.staging.uploaded(id),
  'staging.hasChunk': (fs, [id, n]) => fs.staging.hasChunk(id, n),
  'staging.markComplete': (fs, [id, n]) => fs.staging.markComplete(id, n),
  'staging.unmark': (fs, [id, n]) => fs.staging.unmark(id, n),
  'staging.hashData': (fs, [id]) => fs.staging.hashData(id),
  'staging.exists': (fs, [id]) => fs.staging.exists(id),
  'staging.remove': (fs, [id]) => fs.staging.remove(id),
  'staging.stagedBytes': (fs) => fs.staging.stagedBytes(),
  'staging.identifiers': (fs) => fs.staging.identifiers(),
  'staging.cleanup': (fs, [now, busy, maxAgeMs]) => fs.staging.cleanup(now, (id: string) => (busy as string[]).includes(id), maxAgeMs),
};

export function toWire(e: unknown): WireError {
  if (e instanceof AppError) return { app: { code: e.code, message: e.message, httpStatus: e.httpStatus }, message: e.message };
  const err = e as NodeJS.ErrnoException;
  return { message: err?.message ?? String(e), errno: err?.code };
}

/**
 * Serves one connection from the file service: calls one at a time, each run by `fs` — the account's
 * space, in this process, which runs as the account's uid/gid (started by the launcher). Ends when the
 * connection does.
 */
export async function serveAccount(socket: Socket, fs: LocalAccountFs): Promise<void> {
  const reader = new FrameReader(socket);
  let opened: OpenedFile | null = null;
  for (;;) {
    let req: { method: string; args: any[] };
    try {
      const f = await reader.next();
      if (f.kind !== Kind.REQ) throw new Error(`expected a request, got frame ${f.kind}`);
      req = JSON.parse(f.payload.toString());
    } catch {
      await opened?.close();
      socket.destroy();
      return;
    }
    const { method, args } = req;
    try {
      if (method === 'writeFile' || method === 'staging.writeRange') {
        // The bytes follow the request; whatever the outcome, they are read up to END/ABORT so the next
        // request starts on a frame boundary.
        const input = dataFrames(reader);
        let result: unknown;
        let failure: unknown = null;
        try {
          result = method === 'writeFile' ? await fs.writeFile(args[0], input, args[1]) : await fs.staging.writeRange(args[0], args[1], input, () => {});
        } catch (e) {
          failure = e;
        }
        await input.drain();
        if (failure) throw failure;
        await writeJson(socket, Kind.RES, { result });
      } else if (method === 'openFile') {
        await opened?.close();
        opened = await fs.openFile(args[0]);
        await writeJson(socket, Kind.RES, { result: opened.stat });
      } else if (method === 'file.read') {
        if (!opened) throw new Error('no file open');
        const stream = opened.read(args[0], args[1]);
        await writeJson(socket, Kind.RES, { result: null });
        for await (const piece of stream as AsyncIterable<Buffer>) await writeFrame(socket, Kind.DATA, piece);
        await writeFrame(socket, Kind.END);
      } else if (method === 'file.close') {
        await opened?.close();
        opened = null;
        await writeJson(socket, Kind.RES, { result: null });
      } else {
        const run = plain[method];
        if (!run) throw new Error(`unknown call ${method}`);
        await writeJson(socket, Kind.RES, { result: (await run(fs, args)) ?? null });
      }
    } catch (e) {
      if (socket.destroyed) return;
      await writeJson(socket, Kind.RES, { error: toWire(e) }).catch(() => socket.destroy());
    }
  }
}
