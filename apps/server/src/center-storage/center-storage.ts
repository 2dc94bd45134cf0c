import path from 'node:path';
import type { Readable } from 'node:stream';
import { ErrorCode, type AssetFileEntry, type AssetReadme, type ClusterAccount, type StorageEntry } from '@suanli/contracts';
import type { CenterConfig } from '../centers/centers';
import { AppError, notFound } from '../errors';

export { parseUserPath } from '../file-service/storage/paths';

/** An entry of a home as lstat sees it: links are reported as links and never followed. */
export type HomeEntry = StorageEntry;

/** A regular file read whole, as a stream (the file is released when the stream ends or is destroyed). */
export interface OpenedStream {
  size: number;
  stream: Readable;
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
 * One center's storage, as the gateway's modules use it (docs/adr/0016-center-storage.md): the operations
 * task, asset and image code need on that center's disk, and nothing else. Paths in an account's home are
 * user paths (`/a/b`, parsed and confined by the implementation: beneath the home, a link anywhere on the
 * way refused with 1308, never followed — ADR 0004). The asset area is the platform's
 * (`<storageRoot>/.assets`, ADR 0008/0013).
 *
 * Two implementations with one behaviour, chosen per center by the centers file's `storageAccess`:
 * `LocalCenterStorage` (the disk is mounted on the gateway's host: the embedded default) and
 * `HttpCenterStorage` (only the center's file service has it; calls under `{fileServiceUrl}/api/v1/storage`,
 * authenticated by the gateway's storage grant). The file service answers those calls with a
 * `LocalCenterStorage` of its own, so there is one implementation of the operations. `center-storage.contract.ts`
 * runs the same cases against both.
 */
export interface CenterStorage {
  readonly centerId: string;
  /** How this one reaches the disk (logs and tests). */
  readonly transport: 'in-process' | 'http';

  // ---- an account's home ----------------------------------------------------------------------------------

  /** Makes the account's home exist (0755; as the account where the file service runs workers). */
  ensureHome(account: string): Promise<void>;
  /** lstat of the entry (`/` is the home); null when it or a folder on the way is missing; 1308 for a link on the way. */
  stat(account: string, userPath: string): Promise<HomeEntry | null>;
  /**
   * Up to `limit` bytes of a regular file from `offset`, and the file's size; null when there is no such
   * file (missing, or not a regular file). 1308 for a link.
   */
  readFile(account: string, userPath: string, offset: number, limit: number): Promise<{ bytes: Buffer; size: number } | null>;
  /** A regular file, whole, as a stream; null when there is none. 1308 for a link. */
  openFile(account: string, userPath: string): Promise<OpenedStream | null>;
  /** Writes a file (made with its missing folders; replaced when it exists). */
  writeFile(account: string, userPath: string, source: Readable): Promise<void>;
  /**
   * Makes the folder `userPath` with its missing parents, as the account (an existing folder is fine; a file
   * or link on the way is refused: 1302/1308). A task's own working folder is made this way.
   */
  makeDir(account: string, userPath: string): Promise<void>;

  // ---- the asset area (ADR 0008, 0013) --------------------------------------------------------------------

  /** The asset folders (names under `.assets/`), for re-applying access at start-up. */
  assetDirs(): Promise<string[]>;
  hasAssetDir(assetId: string): Promise<boolean>;
  /**
   * Sets exactly who may read the asset's versions here: public → 0755; otherwise 0750 with an ACL entry per
   * uid. `create` makes the folder first (0700 when new); without it a missing folder is left alone (false).
   * When the ACL cannot be set, the folder is closed (0700) and the call throws (AccessError in process,
   * 1300 `数据目录的访问权限设置失败…` over HTTP).
   */
  applyAccess(assetId: string, access: DiskAccess, opts?: { create?: boolean }): Promise<boolean>;
  /** Closes a folder no asset owns any more (0700); none is fine. */
  closeAssetDir(assetId: string): Promise<void>;

  // ---- the teams' area (ADR 0018) -------------------------------------------------------------------------

  /** The team folders (names under `teams/`), for re-applying access at start-up. */
  teamDirs(): Promise<string[]>;
  /**
   * Sets exactly who may read and write the team's folder here: 0770-like with an ACL entry `u:<uid>:rwx` per
   * member account and default entries that make everything made inside readable and writable through it; no
   * uid closes it (0700, the platform only). `create` makes the folder first; without it a missing folder is
   * left alone (false). When the ACL cannot be set the folder is closed and the call throws (as applyAccess).
   */
  applyTeamAccess(teamId: string, uids: number[], opts?: { create?: boolean }): Promise<boolean>;
  /**
   * Copies the folder `userPath` of the account's home (read as the account, links skipped) into
   * `.assets/<assetId>/<versionId>/`, read-only, with its manifest beside it. Progress is bytes copied. A file
   * that changes size during the copy fails it (1307 文件在复制期间发生了变化); nothing is left behind
   * on failure.
   */
  snapshot(account: string, userPath: string, assetId: string, versionId: string, onProgress: (copied: number, total: number) => void): Promise<Snapshot>;
  /** The version's manifest (`<versionId>.sha256`), or null when the version is not (yet) complete here. */
  versionManifest(assetId: string, versionId: string): Promise<string | null>;
  /** A synced copy becomes a version like the original: `manifest` beside it, everything read-only. Idempotent. */
  adoptCopy(assetId: string, versionId: string, manifest: string): Promise<void>;
  removeVersion(assetId: string, versionId: string): Promise<void>;
  removeAsset(assetId: string): Promise<void>;
  /** Entries of a folder of a version (folders first, then by name). 1302 when there is no such folder. */
  listVersion(assetId: string, versionId: string, userPath: string): Promise<AssetFileEntry[]>;
  /** The version's README (README.md in any case at its top), at most ASSET_README_MAX bytes. */
  versionReadme(assetId: string, versionId: string): Promise<AssetReadme>;
  /** A file of a version (downloads). 1301 when there is no such file. */
  openVersionFile(assetId: string, versionId: string, userPath: string): Promise<OpenedStream>;

  /** Releases what the implementation holds (worker connections, sockets). */
  close(): Promise<void>;
}

/** Every center's storage, by center id. */
export class CenterStorages {
  private readonly byId = new Map<string, CenterStorage>();

  constructor(centers: readonly CenterConfig[], make: (center: CenterConfig) => CenterStorage) {
    for (const c of centers) this.byId.set(c.id, make(c));
  }

  /** The storage of a center (404 `算力分中心不存在` for one the centers file does not name). */
  of(center: string | Pick<CenterConfig, 'id'>): CenterStorage {
    const s = this.byId.get(typeof center === 'string' ? center : center.id);
    if (!s) throw notFound('算力分中心');
    return s;
  }

  async close() {
    await Promise.all([...this.byId.values()].map((s) => s.close()));
  }
}

/*
 * Where things are on a center's storage as the center's own hosts see it — its file service, login node and
 * compute nodes, where jobs run: the paths a job is given (home, work dir, mounted versions). Pure: no I/O,
 * and true whether or not the gateway has the disk (ADR 0016).
 */

/** The account's home as jobs see it: `<storageRoot>/home/<account>`. */
export const jobHomeOf = (center: Pick<CenterConfig, 'storageRoot'>, account: string) => path.join(center.storageRoot, 'home', account);

/** A version's folder as a task mounts it: `<storageRoot>/.assets/<assetId>/<versionId>`. */
export const versionDirOf = (center: Pick<CenterConfig, 'storageRoot'>, assetId: string, versionId: string) => path.join(center.storageRoot, '.assets', assetId, versionId);

/** A team's folder as its members' jobs see it: `<storageRoot>/teams/<teamId>` (ADR 0018). */
export const teamDirOf = (center: Pick<CenterConfig, 'storageRoot'>, teamId: string) => path.join(center.storageRoot, 'teams', teamId);

/**
 * The name of a cluster account the gateway may act as: a disabled account is refused (1020) as the file
 * service refuses its user, a missing one is an internal error.
 */
export function activeAccount(a: Pick<ClusterAccount, 'account' | 'status'> | undefined): string {
  if (!a) throw new AppError(ErrorCode.INTERNAL_FAILED, '未找到该分中心的集群账号');
  if (a.status === 'disabled') throw new AppError(ErrorCode.NO_PERMISSION, '该分中心的集群账号已停用');
  return a.account;
}
