import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { ASSET_README_MAX, ASSET_VERSION_FILES_MAX, ErrorCode, type AssetFileEntry, type AssetReadme } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, invalid } from '../../errors';
import type { FileUser } from '../../file-service/identity';
import { fileErr, refuseLink } from '../../file-service/storage/account-fs';
import { Beneath, WalkError } from '../../file-service/storage/beneath';
import { parseUserPath } from '../../file-service/storage/paths';
import { InProcessAccounts, type AccountFsFactory } from '../../file-service/storage/spaces';

const execFileP = promisify(execFile);

/** The asset area's access could not be set: the folder was closed (0700) and the operation must fail. */
export class AccessError extends Error {
  override name = 'AccessError';
}

/** What a finished snapshot holds. */
export interface Snapshot {
  sizeBytes: number;
  fileCount: number;
  /** sha256 of the manifest (`<sha256>  <path>` per file, sorted by path — `sha256sum` format). */
  digest: string;
}

/** Who may read an asset's folder on one center (ADR 0013): everyone, or exactly these uids. */
export interface DiskAccess {
  public: boolean;
  /** Numeric uids of cluster accounts on that center (the owner's and those it is shared with). */
  uids: number[];
}

/**
 * Version snapshots in each center's platform-managed asset area, `<storageRoot>/.assets/<assetId>/<versionId>/`
 * (ADR 0008). A snapshot is read from the user's home through the file service's `AccountFs` — resolved
 * beneath the home without following links, as the user's account when accounts are real — and written here
 * by the platform, then made read-only (files 0444, folders 0555): the user's jobs and shells can read a
 * version but not change it, and later edits of the source folder never reach it.
 *
 * Who can read is decided by one folder per asset and center (ADR 0013): `.assets/` is 0711 (traversable, not
 * listable), `.assets/<assetId>/` is 0750 with an ACL entry `u:<uid>:r-x` per cluster account that may read
 * (0755 once public) — `applyAccess`. A new asset folder is made 0700 and opened only by that call.
 *
 * Beside each version, `<versionId>.sha256` holds its manifest (`sha256sum -c` checks a copy; the
 * cross-center sync compares with it).
 */
export class AssetStore {
  private readonly accounts = new Map<string, AccountFsFactory>();

  constructor(
    private readonly centers: CenterConfig[],
    /** How an account's space is opened on a center (default: in this process, as the embedded file service). */
    private readonly accountsFor: (center: CenterConfig) => AccountFsFactory = (c) => new InProcessAccounts(path.join(c.storageRoot, '.uploads')),
    /** Debian's `acl` package (scripts/provision.sh); numeric uids work whether or not a passwd entry exists. */
    private readonly setfacl = 'setfacl',
  ) {}

  private factory(center: CenterConfig) {
    let f = this.accounts.get(center.id);
    if (!f) this.accounts.set(center.id, (f = this.accountsFor(center)));
    return f;
  }

  areaOf(center: CenterConfig) {
    return path.join(center.storageRoot, '.assets');
  }

  /** The asset's folder on the center's disk: the one folder whose mode and ACL decide who reads its versions. */
  assetDirOf(center: CenterConfig, assetId: string) {
    return path.join(this.areaOf(center), assetId);
  }

  /**
   * Makes the asset area exist (0711: every account can pass through it to the folders it is granted, none
   * can list it) and the asset's folder in it (0700 when new: nobody else reads it until `applyAccess`).
   */
  async ensureAssetDir(center: CenterConfig, assetId: string) {
    const area = this.areaOf(center);
    await fsp.mkdir(area, { recursive: true, mode: 0o711 });
    await fsp.chmod(area, 0o711);
    await fsp.mkdir(this.assetDirOf(center, assetId), { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }

  /**
   * Sets exactly who may read the asset's versions on this center (ADR 0013): public → 0755 without named
   * entries; otherwise 0750 with `u:<uid>:r-x` for each uid (and the mask), nobody else — one `setfacl --set`
   * on the asset's folder, whatever the versions below it hold (they stay 0444/0555; nobody else can
   * traverse to them). `create` makes the folder first (a copy about to be synced here); without it a center
   * where the asset has no folder is left alone (false).
   *
   * When the ACL cannot be set (no `setfacl`, a filesystem without ACLs), the folder is closed to everyone
   * but the platform (0700) and the call throws: private data is never left readable by the wrong accounts.
   */
  async applyAccess(center: CenterConfig, assetId: string, access: DiskAccess, opts: { create?: boolean } = {}): Promise<boolean> {
    const dir = this.assetDirOf(center, assetId);
    if (opts.create) await this.ensureAssetDir(center, assetId);
    const st = await fsp.lstat(dir).catch(() => null);
    if (!st) return false;
    if (!st.isDirectory()) throw new Error(`asset area: ${dir} is not a directory`);
    await fsp.chmod(this.areaOf(center), 0o711);
    const uids = [...new Set(access.uids)].sort((a, b) => a - b);
    for (const uid of uids) if (!Number.isSafeInteger(uid) || uid < 0) throw new Error(`asset area: bad uid ${uid}`);
    const entries = access.public
      ? ['u::rwx', 'g::r-x', 'o::r-x']
      : ['u::rwx', 'g::r-x', 'o::---', ...uids.map((u) => `u:${u}:r-x`), ...(uids.length ? ['m::r-x'] : [])];
    try {
      // -P: never follow a link (the area is the platform's; the discipline costs nothing).
      await execFileP(this.setfacl, ['-P', '--set', entries.join(','), dir], { timeout: 30_000 });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      // Without the tool, an ACL of the three base entries is a chmod (a folder only setfacl could have given
      // named entries has none here): the public hall and the embedded default keep working on such a host.
      if (err.code === 'ENOENT' && (access.public || !uids.length)) {
        await fsp.chmod(dir, access.public ? 0o755 : 0o750);
        return true;
      }
      await fsp.chmod(dir, 0o700).catch(() => {});
      const why = err.code === 'ENOENT' ? `${this.setfacl} not found (install Debian's acl package)` : (err.stderr?.trim() || err.message);
      throw new AccessError(`cannot set the ACL of ${dir} (${entries.join(',')}): ${why}; the folder was closed (0700)`);
    }
    return true;
  }

  /** The asset folders on a center's disk (names under `.assets/`), for re-applying access at start-up. */
  async assetDirs(center: CenterConfig): Promise<string[]> {
    const entries = await fsp.readdir(this.areaOf(center), { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  }

  async hasAssetDir(center: CenterConfig, assetId: string) {
    return (await fsp.lstat(this.assetDirOf(center, assetId)).catch(() => null))?.isDirectory() ?? false;
  }

  /** Closes a folder under `.assets/` that no asset owns any more (left by an interrupted delete); none is fine. */
  async closeOrphan(center: CenterConfig, name: string) {
    await fsp.chmod(this.assetDirOf(center, name), 0o700).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }

  /** The version's folder on the center's disk (what a task mounts). */
  dirOf(center: CenterConfig, assetId: string, versionId: string) {
    return path.join(this.areaOf(center), assetId, versionId);
  }

  /**
   * Checks that `userPath` is a folder in the user's home (1005 naming `field` otherwise, 1308 for a link on
   * the way) and returns its segments.
   */
  async checkSource(center: CenterConfig, user: FileUser, userPath: string, field: string): Promise<string[]> {
    const segs = parseUserPath(userPath);
    const space = await this.factory(center).open(user);
    try {
      const st = await space.stat(segs).catch((e: unknown) => {
        if (e instanceof AppError && (e.code === ErrorCode.DIR_NOT_FOUND || e.code === ErrorCode.FILE_NOT_FOUND)) return null;
        throw e;
      });
      refuseLink(st, segs);
      if (!st || st.type !== 'dir') throw invalid(field, `目录不存在：/${segs.join('/')}`);
      return segs;
    } finally {
      space.release();
    }
  }

  /**
   * Copies the folder `segs` of the user's home into the version's folder. Progress is reported as bytes
   * copied. A file that changes size while it is copied fails the snapshot (it would not be one).
   */
  async snapshot(
    center: CenterConfig,
    user: FileUser,
    segs: string[],
    assetId: string,
    versionId: string,
    onProgress: (copied: number, total: number) => void,
  ): Promise<Snapshot> {
    const area = this.areaOf(center);
    // A new asset's folder is 0700 until the service applies its access once the version is ready.
    await this.ensureAssetDir(center, assetId);
    const final = this.dirOf(center, assetId, versionId);
    const tmp = path.join(area, assetId, `.tmp-${versionId}`);
    await fsp.rm(tmp, { recursive: true, force: true });
    await fsp.mkdir(tmp, { mode: 0o755 });
    const space = await this.factory(center).open(user);
    try {
      const entries = await space.walk(segs);
      if (entries.length > ASSET_VERSION_FILES_MAX) throw new AppError(ErrorCode.ASSET_TOO_MANY_FILES, `文件数量超出单个版本的上限（${ASSET_VERSION_FILES_MAX}）`);
      const total = entries.reduce((n, e) => n + (e.stat.type === 'file' ? e.stat.size : 0), 0);
      const lines: string[] = [];
      let copied = 0;
      let files = 0;
      for (const e of entries) {
        const dest = path.join(tmp, ...e.rel);
        if (e.stat.type === 'dir') {
          await fsp.mkdir(dest, { mode: 0o755 });
          continue;
        }
        const opened = await space.openFile([...segs, ...e.rel]);
        const hash = createHash('sha256');
        let bytes = 0;
        try {
          const counter = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              hash.update(chunk);
              bytes += chunk.length;
              copied += chunk.length;
              onProgress(copied, total);
              cb(null, chunk);
            },
          });
          const source = opened.stat.size > 0 ? opened.read(0, opened.stat.size - 1) : Readable.from([]);
          await pipeline(source, counter, fs.createWriteStream(dest, { flags: 'wx', mode: 0o444 }));
        } finally {
          await opened.close();
        }
        if (bytes !== opened.stat.size || opened.stat.size !== e.stat.size) {
          throw new AppError(ErrorCode.FILE_CHECK_FAILED, `文件在复制期间发生了变化：/${[...segs, ...e.rel].join('/')}，请稍后重试`);
        }
        files++;
        lines.push(`${hash.digest('hex')}  ${e.rel.join('/')}`);
      }
      lines.sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : a.slice(66) > b.slice(66) ? 1 : 0));
      const manifest = lines.map((l) => `${l}\n`).join('');
      await fsp.writeFile(`${final}.sha256`, manifest, { mode: 0o444 });
      await makeReadOnly(tmp);
      await fsp.rename(tmp, final);
      return { sizeBytes: copied, fileCount: files, digest: createHash('sha256').update(manifest).digest('hex') };
    } catch (e) {
      await this.removeDir(tmp);
      throw e;
    } finally {
      space.release();
    }
  }

  /**
   * A version synced into another center's asset area (ADR 0010 §8) becomes a version folder like the
   * original: its manifest beside it and everything read-only. Idempotent (done once the manifest is there).
   * Every file of the copy was verified against the source's SHA-256 by the sync, so the manifest is the
   * source's.
   */
  async adoptCopy(source: CenterConfig, target: CenterConfig, assetId: string, versionId: string) {
    const manifest = `${this.dirOf(target, assetId, versionId)}.sha256`;
    if (fs.existsSync(manifest)) return;
    await makeReadOnly(this.dirOf(target, assetId, versionId));
    const tmp = `${manifest}.${process.pid}.tmp`;
    await fsp.copyFile(`${this.dirOf(source, assetId, versionId)}.sha256`, tmp);
    await fsp.chmod(tmp, 0o444);
    await fsp.rename(tmp, manifest);
  }

  /** Removes a version's files (and its manifest); nothing there is fine. */
  async removeVersion(center: CenterConfig, assetId: string, versionId: string) {
    await this.removeDir(path.join(this.areaOf(center), assetId, `.tmp-${versionId}`));
    await this.removeDir(this.dirOf(center, assetId, versionId));
    await fsp.rm(`${this.dirOf(center, assetId, versionId)}.sha256`, { force: true });
  }

  async removeAsset(center: CenterConfig, assetId: string) {
    await this.removeDir(path.join(this.areaOf(center), assetId));
  }

  /** Entries of a folder of a version (folders first, then by name); links are never there (never copied). */
  async list(center: CenterConfig, assetId: string, versionId: string, userPath: string): Promise<AssetFileEntry[]> {
    const segs = parseUserPath(userPath);
    return this.inVersion(center, assetId, versionId, segs, async (dir) => {
      const out: AssetFileEntry[] = [];
      for (const name of await fsp.readdir(dir)) {
        const st = await fsp.lstat(path.join(dir, name));
        if (st.isDirectory()) out.push({ name, type: 'dir', size: 0 });
        else if (st.isFile()) out.push({ name, type: 'file', size: st.size });
      }
      return out.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name, 'zh-CN') : a.type === 'dir' ? -1 : 1));
    });
  }

  /** The version's README (README.md in any case at its top), for the detail page. */
  async readme(center: CenterConfig, assetId: string, versionId: string): Promise<AssetReadme> {
    return this.inVersion(center, assetId, versionId, [], async (dir) => {
      const name = (await fsp.readdir(dir)).find((n) => /^readme(\.md|\.markdown|\.txt)?$/i.test(n));
      if (!name) return { markdown: '', fileName: '' };
      const fh = await fsp.open(path.join(dir, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        const buf = Buffer.alloc(ASSET_README_MAX);
        const { bytesRead } = await fh.read(buf, 0, ASSET_README_MAX, 0);
        return { markdown: buf.subarray(0, bytesRead).toString('utf8'), fileName: name };
      } finally {
        await fh.close();
      }
    });
  }

  /** A file of a version opened for reading (downloads, previews). */
  async openFile(center: CenterConfig, assetId: string, versionId: string, userPath: string) {
    const segs = parseUserPath(userPath);
    if (!segs.length) throw fileErr(ErrorCode.FILE_NOT_FOUND, '/');
    return this.inVersion(center, assetId, versionId, segs.slice(0, -1), async (dir) => {
      try {
        const fh = await fsp.open(path.join(dir, segs[segs.length - 1]), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        const st = await fh.stat();
        if (!st.isFile()) {
          await fh.close();
          throw fileErr(ErrorCode.FILE_NOT_FOUND, userPath);
        }
        return { fh, size: st.size };
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw fileErr(ErrorCode.FILE_NOT_FOUND, userPath);
      }
    });
  }

  /**
   * Runs `fn` on a folder of a version, resolved beneath it without following links (the area is the
   * platform's, but the same discipline costs nothing and keeps a planted link harmless).
   */
  private async inVersion<T>(center: CenterConfig, assetId: string, versionId: string, segs: string[], fn: (dir: string) => Promise<T>): Promise<T> {
    try {
      return await new Beneath(this.dirOf(center, assetId, versionId)).withDir(segs, async (d) => fn(d.at()));
    } catch (e) {
      if (e instanceof WalkError) throw fileErr(ErrorCode.DIR_NOT_FOUND, `/${segs.join('/')}`);
      throw e;
    }
  }

  private async removeDir(dir: string) {
    if (!fs.existsSync(dir)) return;
    await makeWritable(dir);
    await fsp.rm(dir, { recursive: true, force: true });
  }

  async close() {
    await Promise.all([...this.accounts.values()].map((f) => f.close()));
  }
}


/** Files 0444, folders 0555 (deepest first, so the walk can still enter each folder). */
async function makeReadOnly(dir: string) {
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await makeReadOnly(p);
    else if (e.isFile()) await fsp.chmod(p, 0o444);
  }
  await fsp.chmod(dir, 0o555);
}

/** Folders writable again so the tree can be removed (the platform owns them; 0700: nobody else gets in meanwhile). */
async function makeWritable(dir: string) {
  await fsp.chmod(dir, 0o700).catch(() => {});
  for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) await makeWritable(path.join(dir, e.name));
  }
}
