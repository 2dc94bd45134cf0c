// Over 400 lines: one class holds both halves of CenterStorage (homes, the asset area) as the interface has them.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { ASSET_README_MAX, ASSET_VERSION_FILES_MAX, ErrorCode, type AssetFileEntry, type AssetReadme } from '@suanli/contracts';
import type { CenterConfig } from '../centers/centers';
import { AppError, invalid } from '../errors';
import { toFileUser } from '../file-service/identity';
import { fileErr, type AccountFs, type OpenedFile } from '../file-service/storage/account-fs';
import { Beneath, WalkError } from '../file-service/storage/beneath';
import { parseNewPath, parseUserPath } from '../file-service/storage/paths';
import { InProcessAccounts, type AccountFsFactory } from '../file-service/storage/spaces';
import type { CenterStorage, DiskAccess, HomeEntry, OpenedStream, Snapshot } from './center-storage';

const execFileP = promisify(execFile);

/** The asset area's access could not be set: the folder was closed (0700) and the operation must fail. */
export class AccessError extends Error {
  override name = 'AccessError';
}

/** Cluster account names, as the file service's identity accepts them (they become directory names). */
const ACCOUNT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** Folders of the asset area are asset and version ids (newId()); anything else is never a path here. */
const AREA_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
function areaId(id: string, field: string): string {
  if (!AREA_ID.test(id)) throw invalid(field, '标识不合法');
  return id;
}

export interface LocalCenterStorageOptions {
  /** How an account's space is opened (default: in this process; a file service passes its own, workers for real accounts). */
  accounts?: AccountFsFactory;
  /** Debian's `acl` package (scripts/provision.sh); numeric uids work whether or not a passwd entry exists. */
  setfacl?: string;
}

/**
 * A center's storage on this host's disk (see CenterStorage): the gateway's when the disk is mounted here (the
 * embedded default), and the file service's own, which answers the HTTP calls of `HttpCenterStorage` with it.
 *
 * Homes are opened through the file service's `AccountFs` (storage/account-fs.ts): resolved beneath the home
 * without following links, as the account where the factory runs workers (ADR 0004). The asset area
 * `<storageRoot>/.assets/<assetId>/<versionId>/` is the platform's (ADR 0008): a snapshot reads the user's
 * folder through the account's space and writes here, then makes it read-only (files 0444, folders 0555); who
 * can read is decided by one folder per asset (ADR 0013): `.assets/` is 0711 (traversable, not listable),
 * `.assets/<assetId>/` 0750 with an ACL entry `u:<uid>:r-x` per reader (0755 once public) — `applyAccess`. A
 * new asset folder is made 0700 and opened only by that call. Beside each version, `<versionId>.sha256` holds
 * its manifest (`sha256sum -c` checks a copy; the cross-center sync compares with it).
 */
export class LocalCenterStorage implements CenterStorage {
  readonly centerId: string;
  readonly transport = 'in-process' as const;
  private readonly accounts: AccountFsFactory;
  private readonly ownsAccounts: boolean;
  private readonly setfacl: string;

  constructor(
    private readonly center: CenterConfig,
    opts: LocalCenterStorageOptions = {},
  ) {
    this.centerId = center.id;
    this.ownsAccounts = !opts.accounts;
    this.accounts = opts.accounts ?? new InProcessAccounts(path.join(center.storageRoot, '.uploads'));
    this.setfacl = opts.setfacl ?? 'setfacl';
  }

  // ---- homes ----------------------------------------------------------------------------------------------

  /** Runs `fn` in the account's space (a disabled or malformed account never gets one). */
  private async inHome<T>(account: string, fn: (space: AccountFs) => Promise<T>): Promise<T> {
    const space = await this.open(account);
    try {
      return await fn(space);
    } finally {
      space.release();
    }
  }

  private open(account: string): Promise<AccountFs> {
    if (!ACCOUNT.test(account)) throw invalid('account', '集群账号名称不合法');
    return this.accounts.open(toFileUser(this.center, { account, status: 'active' }));
  }

  async ensureHome(account: string) {
    // Opening a space no longer makes a missing home (issue 26: that mkdir ran before every operation); the
    // first operation that finds it missing does. A stat of the home is such an operation.
    await this.inHome(account, (space) => space.stat([]));
  }

  async stat(account: string, userPath: string): Promise<HomeEntry | null> {
    const segs = parseUserPath(userPath);
    const st = await this.inHome(account, (space) => space.stat(segs)).catch(notFoundAsNull);
    return st ? { type: st.type, size: st.size, mtimeMs: st.mtimeMs } : null;
  }

  async readFile(account: string, userPath: string, offset: number, limit: number) {
    const segs = parseUserPath(userPath);
    return this.inHome(account, async (space) => {
      const file = await space.openFile(segs).catch(notFoundAsNull);
      if (!file) return null;
      try {
        const size = file.stat.size;
        const want = Math.max(0, Math.min(limit, size - offset));
        if (!want) return { bytes: Buffer.alloc(0), size };
        const parts: Buffer[] = [];
        for await (const b of file.read(offset, offset + want - 1)) parts.push(b as Buffer);
        return { bytes: Buffer.concat(parts), size };
      } finally {
        await file.close();
      }
    });
  }

  async openFile(account: string, userPath: string): Promise<OpenedStream | null> {
    const segs = parseUserPath(userPath);
    const space = await this.open(account);
    const file = await space.openFile(segs).catch(notFoundAsNull).catch((e: unknown) => {
      space.release();
      throw e;
    });
    if (!file) {
      space.release();
      return null;
    }
    return streamOf(file, () => space.release());
  }

  async writeFile(account: string, userPath: string, source: Readable) {
    const segs = parseNewPath(userPath);
    if (!segs.length) throw invalid('path', '请指定文件');
    await this.inHome(account, (space) => space.writeFile(segs, source, {}));
  }

  async makeDir(account: string, userPath: string) {
    const segs = parseNewPath(userPath);
    if (!segs.length) throw invalid('path', '请指定目录');
    await this.inHome(account, async (space) => {
      for (let i = 1; i <= segs.length; i++) {
        const at = segs.slice(0, i);
        if ((await space.stat(at))?.type === 'dir') continue;
        await space.ensureDir(at); // refuses a file or a link on the way
        // In process as root (a center whose accounts are real users), a new folder is the account's like the
        // rest of its home — its jobs write there; a worker running as the account made it its own already.
        await space.giveToAccount(at);
      }
    });
  }

  // ---- the asset area -------------------------------------------------------------------------------------

  private get area() {
    return path.join(this.center.storageRoot, '.assets');
  }

  private assetDir(assetId: string) {
    return path.join(this.area, areaId(assetId, 'assetId'));
  }

  private versionDir(assetId: string, versionId: string) {
    return path.join(this.assetDir(assetId), areaId(versionId, 'versionId'));
  }

  /**
   * Makes the asset area exist (0711: every account can pass through it to the folders it is granted, none
   * can list it) and the asset's folder in it (0700 when new: nobody else reads it until `applyAccess`).
   */
  private async ensureAssetDir(assetId: string) {
    await fsp.mkdir(this.area, { recursive: true, mode: 0o711 });
    await fsp.chmod(this.area, 0o711);
    await fsp.mkdir(this.assetDir(assetId), { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }

  async applyAccess(assetId: string, access: DiskAccess, opts: { create?: boolean } = {}): Promise<boolean> {
    const dir = this.assetDir(assetId);
    if (opts.create) await this.ensureAssetDir(assetId);
    const st = await fsp.lstat(dir).catch(() => null);
    if (!st) return false;
    if (!st.isDirectory()) throw new Error(`asset area: ${dir} is not a directory`);
    await fsp.chmod(this.area, 0o711);
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
      const why = err.code === 'ENOENT' ? `${this.setfacl} not found (install Debian's acl package)` : err.stderr?.trim() || err.message;
      throw new AccessError(`cannot set the ACL of ${dir} (${entries.join(',')}): ${why}; the folder was closed (0700)`);
    }
    return true;
  }

  async assetDirs(): Promise<string[]> {
    const entries = await fsp.readdir(this.area, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  }

  async hasAssetDir(assetId: string) {
    return (await fsp.lstat(this.assetDir(assetId)).catch(() => null))?.isDirectory() ?? false;
  }

  async closeAssetDir(assetId: string) {
    await fsp.chmod(this.assetDir(assetId), 0o700).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }

  // ---- the teams' area (ADR 0018) -------------------------------------------------------------------------

  private get teamsArea() {
    return path.join(this.center.storageRoot, 'teams');
  }

  async teamDirs(): Promise<string[]> {
    const entries = await fsp.readdir(this.teamsArea, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  }

  /**
   * One folder decides, as for the asset area: `teams/` is 0711 (passable, not listable: team ids are not
   * enumerable) and `teams/<teamId>/` belongs to the platform with `u:<uid>:rwx` per member account and no
   * access for group or others. Its default ACL gives everything made beneath it `rwx` for all classes, so
   * any member reads and writes what another made, whatever their umask — and nobody else, because nobody
   * else can pass the team folder. A join or a leave is therefore one `setfacl --set` here, never a walk of
   * files the platform does not own (and could not change: only a file's owner sets its ACL).
   */
  async applyTeamAccess(teamId: string, uids: number[], opts: { create?: boolean } = {}): Promise<boolean> {
    const dir = path.join(this.teamsArea, areaId(teamId, 'teamId'));
    if (opts.create) {
      await fsp.mkdir(this.teamsArea, { recursive: true, mode: 0o711 });
      await fsp.mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
    }
    const st = await fsp.lstat(dir).catch(() => null);
    if (!st) return false;
    if (!st.isDirectory()) throw new Error(`teams area: ${dir} is not a directory`);
    await fsp.chmod(this.teamsArea, 0o711);
    const members = [...new Set(uids)].sort((a, b) => a - b);
    for (const uid of members) if (!Number.isSafeInteger(uid) || uid < 0) throw new Error(`teams area: bad uid ${uid}`);
    const entries = ['u::rwx', 'g::---', 'o::---', ...members.map((u) => `u:${u}:rwx`), ...(members.length ? ['m::rwx'] : []), 'd:u::rwx', 'd:g::rwx', 'd:o::rwx'];
    try {
      await execFileP(this.setfacl, ['-P', '--set', entries.join(','), dir], { timeout: 30_000 });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      // Without the tool a team without members is still a chmod; one with members needs the ACL.
      await fsp.chmod(dir, 0o700).catch(() => {});
      if (err.code === 'ENOENT' && !members.length) return true;
      const why = err.code === 'ENOENT' ? `${this.setfacl} not found (install Debian's acl package)` : err.stderr?.trim() || err.message;
      throw new AccessError(`cannot set the ACL of ${dir} (${entries.join(',')}): ${why}; the folder was closed (0700)`);
    }
    return true;
  }

  async snapshot(account: string, userPath: string, assetId: string, versionId: string, onProgress: (copied: number, total: number) => void): Promise<Snapshot> {
    const segs = parseUserPath(userPath);
    // A new asset's folder is 0700 until the service applies its access once the version is ready.
    await this.ensureAssetDir(assetId);
    const final = this.versionDir(assetId, versionId);
    const tmp = path.join(this.assetDir(assetId), `.tmp-${versionId}`);
    await fsp.rm(tmp, { recursive: true, force: true });
    await fsp.mkdir(tmp, { mode: 0o755 });
    try {
      return await this.inHome(account, async (space) => {
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
      });
    } catch (e) {
      await removeDir(tmp);
      throw e;
    }
  }

  async versionManifest(assetId: string, versionId: string): Promise<string | null> {
    try {
      const fh = await fsp.open(`${this.versionDir(assetId, versionId)}.sha256`, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        return await fh.readFile('utf8');
      } finally {
        await fh.close();
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /**
   * A version synced into this asset area (ADR 0010 §8) becomes a version folder like the original: its
   * manifest beside it and everything read-only. Every file of the copy was verified against the source's
   * SHA-256 by the sync, so the manifest is the source's.
   */
  async adoptCopy(assetId: string, versionId: string, manifest: string) {
    const file = `${this.versionDir(assetId, versionId)}.sha256`;
    if (fs.existsSync(file)) return;
    await makeReadOnly(this.versionDir(assetId, versionId));
    const tmp = `${file}.${process.pid}.tmp`;
    await fsp.writeFile(tmp, manifest, { mode: 0o444 });
    await fsp.chmod(tmp, 0o444);
    await fsp.rename(tmp, file);
  }

  async removeVersion(assetId: string, versionId: string) {
    await removeDir(path.join(this.assetDir(assetId), `.tmp-${areaId(versionId, 'versionId')}`));
    await removeDir(this.versionDir(assetId, versionId));
    await fsp.rm(`${this.versionDir(assetId, versionId)}.sha256`, { force: true });
  }

  async removeAsset(assetId: string) {
    await removeDir(this.assetDir(assetId));
  }

  async listVersion(assetId: string, versionId: string, userPath: string): Promise<AssetFileEntry[]> {
    const segs = parseUserPath(userPath);
    return this.inVersion(assetId, versionId, segs, async (dir) => {
      const out: AssetFileEntry[] = [];
      for (const name of await fsp.readdir(dir)) {
        const st = await fsp.lstat(path.join(dir, name));
        if (st.isDirectory()) out.push({ name, type: 'dir', size: 0 });
        else if (st.isFile()) out.push({ name, type: 'file', size: st.size });
      }
      return out.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name, 'zh-CN') : a.type === 'dir' ? -1 : 1));
    });
  }

  async versionReadme(assetId: string, versionId: string): Promise<AssetReadme> {
    return this.inVersion(assetId, versionId, [], async (dir) => {
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

  async openVersionFile(assetId: string, versionId: string, userPath: string): Promise<OpenedStream> {
    const segs = parseUserPath(userPath);
    if (!segs.length) throw fileErr(ErrorCode.FILE_NOT_FOUND, '/');
    return this.inVersion(assetId, versionId, segs.slice(0, -1), async (dir) => {
      let fh: fsp.FileHandle;
      try {
        fh = await fsp.open(path.join(dir, segs[segs.length - 1]), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      } catch {
        throw fileErr(ErrorCode.FILE_NOT_FOUND, userPath);
      }
      const st = await fh.stat();
      if (!st.isFile()) {
        await fh.close();
        throw fileErr(ErrorCode.FILE_NOT_FOUND, userPath);
      }
      return { size: st.size, stream: fh.createReadStream({ autoClose: true }) };
    });
  }

  /**
   * Runs `fn` on a folder of a version, resolved beneath it without following links (the area is the
   * platform's, but the same discipline costs nothing and keeps a planted link harmless).
   */
  private async inVersion<T>(assetId: string, versionId: string, segs: string[], fn: (dir: string) => Promise<T>): Promise<T> {
    try {
      return await new Beneath(this.versionDir(assetId, versionId)).withDir(segs, async (d) => fn(d.at()));
    } catch (e) {
      if (e instanceof WalkError || (e as NodeJS.ErrnoException).code === 'ENOENT') throw fileErr(ErrorCode.DIR_NOT_FOUND, `/${segs.join('/')}`);
      throw e;
    }
  }

  async close() {
    if (this.ownsAccounts) await this.accounts.close();
  }
}

/** "Not found" of a path (1301, 1302) as null; a link on the way (1308) and everything else is thrown. */
function notFoundAsNull(e: unknown): null {
  if (e instanceof AppError && (e.code === ErrorCode.FILE_NOT_FOUND || e.code === ErrorCode.DIR_NOT_FOUND)) return null;
  throw e;
}

/** The whole of an opened file as one stream; the file (and then `release`) is let go when the stream ends or is destroyed. */
function streamOf(file: OpenedFile, release: () => void): OpenedStream {
  const size = file.stat.size;
  const stream = size > 0 ? file.read(0, size - 1) : Readable.from([]);
  // `close` waits for the stream to end (OpenedFile counts its streams).
  void file.close().finally(() => {
    if (size === 0) release();
  });
  if (size > 0) stream.once('close', release);
  return { size, stream };
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

/** A tree of the area removed: folders writable again first (the platform owns them; 0700: nobody else gets in meanwhile). */
async function removeDir(dir: string) {
  if (!fs.existsSync(dir)) return;
  await makeWritable(dir);
  await fsp.rm(dir, { recursive: true, force: true });
}

async function makeWritable(dir: string) {
  await fsp.chmod(dir, 0o700).catch(() => {});
  for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) await makeWritable(path.join(dir, e.name));
  }
}
