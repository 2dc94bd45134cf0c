import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import { isMissing, TEMP_PREFIX } from './paths';

/** A file or directory to put into the archive under `entry` (a relative name inside the zip). */
export interface ZipRoot {
  real: string;
  entry: string;
}

interface ZipItem {
  real: string;
  entry: string;
  stat: Stats;
}

/**
 * Lists what the archive will hold: every regular file and directory under the roots, found with lstat so
 * symlinks are skipped (never followed out of the space), temp files of running uploads left out. Only
 * names and stats are kept in memory, never contents.
 */
export async function collectZipItems(roots: ZipRoot[]): Promise<ZipItem[]> {
  const items: ZipItem[] = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const { real, entry } = stack.pop()!;
    let stat: Stats;
    try {
      stat = await fs.lstat(real);
    } catch (e) {
      if (isMissing(e)) continue;
      throw e;
    }
    if (stat.isDirectory()) {
      items.push({ real, entry, stat });
      const names = (await fs.readdir(real)).filter((n) => !n.startsWith(TEMP_PREFIX)).sort();
      for (const n of names.reverse()) stack.push({ real: path.join(real, n), entry: `${entry}/${n}` });
    } else if (stat.isFile()) {
      items.push({ real, entry, stat });
    }
  }
  return items;
}

/**
 * A zip of the items, produced while it is sent: entries are stored (no compression — the CPU is the
 * bottleneck otherwise and most research data is already compressed), each file opened only when its turn
 * comes (O_NOFOLLOW) and read up to the size it had when listed, so a log still growing cannot corrupt the
 * archive. Because every size is known in advance, so is the archive's length (`size`, for Content-Length).
 */
export function zipStream(items: ZipItem[]): { stream: Readable; size: Promise<number> } {
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
    const meta = { mtime: it.stat.mtime, mode: it.stat.mode };
    const opts = { ...meta, compress: false };
    if (it.stat.isDirectory()) {
      zip.addEmptyDirectory(it.entry, meta);
    } else if (it.stat.size === 0) {
      zip.addBuffer(Buffer.alloc(0), it.entry, opts);
    } else {
      zip.addReadStreamLazy(it.entry, { ...opts, size: it.stat.size }, (cb) => {
        fs.open(it.real, constants.O_RDONLY | constants.O_NOFOLLOW).then(
          (fh) => {
            const s = fh.createReadStream({ start: 0, end: it.stat.size - 1 });
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
