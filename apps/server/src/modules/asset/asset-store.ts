import { ErrorCode, type AssetFileEntry, type AssetReadme } from '@suanli/contracts';
import { parseUserPath, versionDirOf, type CenterStorages, type DiskAccess, type OpenedStream, type Snapshot } from '../../center-storage/center-storage';
import type { CenterConfig } from '../../centers/centers';
import { AppError, invalid } from '../../errors';

export type { DiskAccess, Snapshot };

/**
 * Version snapshots in each center's platform-managed asset area, `<storageRoot>/.assets/<assetId>/<versionId>/`
 * (ADR 0008), as the asset module uses them: every operation is the center's `CenterStorage` (on this host or
 * through the center's file service, ADR 0016), which reads the user's folder beneath the home without
 * following links, writes the version read-only with its manifest beside it, and sets who may read each
 * asset's folder (ADR 0013). What is left here is what spans centers (a copy adopted from another center's
 * version) and the checks the asset service answers in its own words.
 */
export class AssetStore {
  constructor(private readonly storage: CenterStorages) {}

  /** Whether the center's disk is on this host (start-up work on it can be done before serving). */
  isLocal(center: CenterConfig) {
    return this.storage.of(center).transport === 'in-process';
  }

  /** The version's folder as a task on that center mounts it (a path on the center's hosts; no I/O). */
  dirOf(center: CenterConfig, assetId: string, versionId: string) {
    return versionDirOf(center, assetId, versionId);
  }

  applyAccess(center: CenterConfig, assetId: string, access: DiskAccess, opts: { create?: boolean } = {}): Promise<boolean> {
    return this.storage.of(center).applyAccess(assetId, access, opts);
  }

  assetDirs(center: CenterConfig): Promise<string[]> {
    return this.storage.of(center).assetDirs();
  }

  hasAssetDir(center: CenterConfig, assetId: string): Promise<boolean> {
    return this.storage.of(center).hasAssetDir(assetId);
  }

  closeOrphan(center: CenterConfig, name: string): Promise<void> {
    return this.storage.of(center).closeAssetDir(name);
  }

  /**
   * Checks that `userPath` is a folder in the account's home (1005 naming `field` otherwise, 1308 for a link on
   * the way) and returns it normalised (`/a/b`).
   */
  async checkSource(center: CenterConfig, account: string, userPath: string, field: string): Promise<string> {
    const normal = `/${parseUserPath(userPath).join('/')}`;
    const st = await this.storage.of(center).stat(account, normal);
    if (st?.type === 'link') throw new AppError(ErrorCode.ILLEGAL_PATH, `非法路径：${normal} 是符号链接，平台不会跟随`);
    if (!st || st.type !== 'dir') throw invalid(field, `目录不存在：${normal}`);
    return normal;
  }

  /** Copies the folder of the account's home into the version's folder (CenterStorage.snapshot). */
  snapshot(center: CenterConfig, account: string, userPath: string, assetId: string, versionId: string, onProgress: (copied: number, total: number) => void): Promise<Snapshot> {
    return this.storage.of(center).snapshot(account, userPath, assetId, versionId, onProgress);
  }

  /**
   * A version synced into another center's asset area (ADR 0010 §8) becomes a version folder like the
   * original: the source's manifest beside it and everything read-only. Idempotent: nothing is read from the
   * source once the copy has its manifest.
   */
  async adoptCopy(source: CenterConfig, target: CenterConfig, assetId: string, versionId: string) {
    const there = this.storage.of(target);
    if ((await there.versionManifest(assetId, versionId)) !== null) return;
    const manifest = await this.storage.of(source).versionManifest(assetId, versionId);
    if (manifest === null) throw new Error(`asset area: version ${assetId}/${versionId} has no manifest on ${source.id}`);
    await there.adoptCopy(assetId, versionId, manifest);
  }

  removeVersion(center: CenterConfig, assetId: string, versionId: string): Promise<void> {
    return this.storage.of(center).removeVersion(assetId, versionId);
  }

  removeAsset(center: CenterConfig, assetId: string): Promise<void> {
    return this.storage.of(center).removeAsset(assetId);
  }

  list(center: CenterConfig, assetId: string, versionId: string, userPath: string): Promise<AssetFileEntry[]> {
    return this.storage.of(center).listVersion(assetId, versionId, userPath);
  }

  readme(center: CenterConfig, assetId: string, versionId: string): Promise<AssetReadme> {
    return this.storage.of(center).versionReadme(assetId, versionId);
  }

  /** A file of a version for download; the caller sends the stream (or destroys it). */
  openFile(center: CenterConfig, assetId: string, versionId: string, userPath: string): Promise<OpenedStream> {
    return this.storage.of(center).openVersionFile(assetId, versionId, userPath);
  }
}
