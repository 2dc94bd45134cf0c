import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import type { AccountFs, Segs } from './account-fs';
import type { RawStat } from './beneath';

/** One entry of an archive: where it is in the space, its name inside the zip, its stat when listed. */
export interface ZipItem {
  segs: Segs;
  entry: string;
  stat: RawStat;
}

/**
 * A zip of the items, produced while it is sent: entries are stored (no compression — the CPU is the
 * bottleneck otherwise and most research data is already compressed), each file opened only when its turn
 * comes (through the account's space, never following a link) and read up to the size it had when listed, so a log still growing cannot corrupt the
 * archive. Because every size is known in advance, so is the archive's length (`size`, for Content-Length).
 */
export function zipStream(items: ZipItem[], fs: AccountFs): { stream: Readable; size: Promise<number> } {
  const zip = new yazl.ZipFile();
  const out = new PassThrough();
  zip.on('error', (err: Error) => out.destroy(err));
  // When the response is cut (the client aborts, or the server closes), `out` is destroyed and yazl is left
  // paused mid-entry with that entry's file open: nothing would ever read or close it. Files opened for the
  // archive are therefore tracked and closed with `out`.
  const reading = new Set<Readable>();
  out.once('close', () => {
    for (const s of reading) s.destroy();
  });
  for (const it of items) {
    const meta = { mtime: new Date(it.stat.mtimeMs), mode: it.stat.mode };
    const opts = { ...meta, compress: false };
    if (it.stat.type === 'dir') {
      zip.addEmptyDirectory(it.entry, meta);
    } else if (it.stat.size === 0) {
      zip.addBuffer(Buffer.alloc(0), it.entry, opts);
    } else {
      zip.addReadStreamLazy(it.entry, { ...opts, size: it.stat.size }, (cb) => {
        fs.openFile(it.segs).then(
          (file) => {
            const s = file.read(0, it.stat.size - 1);
            void file.close();
            if (out.destroyed) s.destroy();
            else {
              reading.add(s);
              s.once('close', () => reading.delete(s));
            }
            cb(null, s);
          },
          (err: Error) => cb(err, undefined as unknown as Readable),
        );
      });
    }
  }
  // @types/yazl misses the callback's argument: the total length, or -1 when it cannot be known.
  const size = new Promise<number>((resolve) => zip.end(undefined, ((n: number) => resolve(n)) as unknown as () => void));
  zip.outputStream.pipe(out);
  return { stream: out, size };
}
