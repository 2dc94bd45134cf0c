import { downloadName, ErrorCode } from '@suanli/contracts';
import type { FileUser } from './identity';
import { fileErr, refuseLink, userPathOf, type AccountFs, type OpenedFile, type Segs, type WalkedEntry } from './storage/account-fs';
import { parseUserPath } from './storage/paths';
import type { Spaces } from './storage/spaces';
import type { ZipItem } from './storage/zip';

/**
 * What a download turned into: one file opened now (its descriptor is what gets read, Range-capable), or
 * the entries of a zip with the space they are read from when their turn comes.
 */
export type DownloadPlan =
  | { kind: 'file'; name: string; file: OpenedFile }
  | { kind: 'zip'; name: string; items: ZipItem[]; fs: AccountFs; release: () => void };

/** Downloads: checks, then one file or a zip of several paths / a directory. */
export class DownloadService {
  constructor(private readonly spaces: Spaces) {}

  /** The paths of a download exist in the caller's space (else 1308 / 1301); nothing is opened. */
  async checkDownload(user: FileUser, paths: string[]): Promise<void> {
    await this.spaces.with(user, async (fs) => {
      for (const p of paths) await existingForDownload(fs, parseUserPath(p));
    });
  }

  /** One file → opened for a Range-capable answer; several paths or a directory → the entries of a zip. */
  async planDownload(user: FileUser, paths: string[]): Promise<DownloadPlan> {
    const fs = await this.spaces.open(user);
    let keep = false;
    try {
      const roots: { segs: Segs; type: 'file' | 'dir' }[] = [];
      for (const p of paths) {
        const segs = parseUserPath(p);
        roots.push({ segs, type: await existingForDownload(fs, segs) });
      }
      if (roots.length === 1 && roots[0].type === 'file') {
        const segs = roots[0].segs;
        return { kind: 'file', name: segs[segs.length - 1], file: await fs.openFile(segs) };
      }
      const used = new Set<string>();
      const items: ZipItem[] = [];
      for (const { segs, type } of roots) {
        const base = segs[segs.length - 1] ?? user.account;
        let entry = base;
        for (let i = 2; used.has(entry); i++) entry = `${base} (${i})`;
        used.add(entry);
        if (type === 'file') {
          const st = await fs.stat(segs);
          if (st?.type === 'file') items.push({ segs, entry, stat: st });
          continue;
        }
        items.push({ segs, entry, stat: (await fs.stat(segs))! });
        for (const w of await fs.walk(segs)) items.push(zipItemOf(segs, entry, w));
      }
      const first = [...used][0];
      keep = true;
      // The name the console announced (contracts' downloadName), from the same rule.
      const name = downloadName(roots.map((r, i) => ({ name: i === 0 ? first : '', type: r.type === 'file' ? ('file' as const) : ('dir' as const) })));
      return { kind: 'zip', name, items, fs, release: () => fs.release() };
    } finally {
      if (!keep) fs.release();
    }
  }
}

const zipItemOf = (segs: Segs, entry: string, w: WalkedEntry): ZipItem => ({ segs: [...segs, ...w.rel], entry: `${entry}/${w.rel.join('/')}`, stat: w.stat });

/** A path to download must be a file or a directory (a link is refused as a link: never followed). */
async function existingForDownload(fs: AccountFs, segs: Segs): Promise<'file' | 'dir'> {
  const st = await fs.stat(segs);
  refuseLink(st, segs);
  if (!st || (st.type !== 'file' && st.type !== 'dir')) throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(segs));
  return st.type;
}
