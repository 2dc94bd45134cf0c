import { ErrorCode } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { AppContext } from '../../context';
import { AppError } from '../../errors';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { AssetTeams } from '../team/team.service';
import type { AssetRepository } from './asset.repository';
import type { AssetStore, DiskAccess } from './asset-store';

/** What the user reads when the disk could not be made to say who may read (the detail is in the log). */
const ACCESS_FAILED = '数据目录的访问权限设置失败，请联系管理员';

/**
 * Keeps each asset's folder on each center readable by exactly the accounts that may read it (ADR 0013):
 * the owner's cluster account there and those of the users it is shared with and of the current members of
 * the teams it is shared with (ADR 0018), or everyone once public. The
 * set is computed from the database at the moment it is applied, and applies for one asset run one at a time
 * in this process, so the last change (share, unshare, publication, a new account mounting it) always wins.
 */
export class AssetAccess {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Start-up work waiting for a center's file service (whenReachable). */
  private readonly pending = new Set<Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closed = false;

  constructor(
    private readonly repo: AssetRepository,
    private readonly store: AssetStore,
    private readonly clusterAccounts: ClusterAccountService,
    private readonly centers: CenterConfig[],
    private readonly log: AppContext['log'],
    /** The members of the teams an asset is shared with (ADR 0018), read when the access is applied. */
    private readonly teams: Pick<AssetTeams, 'memberIds'>,
  ) {}

  /** Who may read the asset's folder on `center`, as the database says now (null: the asset is gone). */
  async accessOn(assetId: string, center: CenterConfig): Promise<DiskAccess | null> {
    const row = await this.repo.findById(assetId);
    if (!row) return null;
    if (row.visibility === 'public') return { public: true, uids: [] };
    const readers = [row.owner_id, ...(await this.repo.shareUserIds(assetId))];
    // Every current member of a team it is shared with: a member who leaves drops out at the next apply.
    for (const teamId of await this.repo.teamShareIds(assetId)) readers.push(...(await this.teams.memberIds(teamId)));
    const accounts = await this.clusterAccounts.accountsOn(center.id, readers);
    return { public: false, uids: accounts.map((a) => a.uid) };
  }

  /**
   * Re-applies the asset's access on `only` (default: every center where it has a folder). `create` makes
   * the folder on `only` first (a copy about to arrive there). Throws an AppError the user can read when the
   * disk refuses; the folder is then closed to everyone but the platform.
   */
  apply(assetId: string, only?: CenterConfig, opts: { create?: boolean } = {}): Promise<void> {
    const prev = this.queues.get(assetId) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(() => this.applyNow(assetId, only ? [only] : this.centers, opts));
    this.queues.set(assetId, next);
    void next.finally(() => {
      if (this.queues.get(assetId) === next) this.queues.delete(assetId);
    }).catch(() => {});
    return next;
  }

  private async applyNow(assetId: string, centers: CenterConfig[], opts: { create?: boolean }) {
    for (const center of centers) {
      // Centers where the asset has no folder have nothing to set (unless one is about to be made there).
      if (!opts.create && !(await this.store.hasAssetDir(center, assetId))) continue;
      try {
        const access = await this.accessOn(assetId, center);
        if (!access) {
          // Deleted meanwhile: whatever is left of its folder is nobody's.
          await this.store.closeOrphan(center, assetId);
          continue;
        }
        await this.store.applyAccess(center, assetId, access, opts);
      } catch (e) {
        this.log.error({ err: e, assetId, center: center.id }, 'asset area: the access of an asset folder could not be set');
        // An AccessError (this host's disk) or anything unexpected is told as the access failure; a file service
        // that refused already answered it so (1300), and a refusal of the call itself (1403…) says what it is.
        throw e instanceof AppError ? e : new AppError(ErrorCode.FILE_FAILED, ACCESS_FAILED);
      }
    }
  }

  /**
   * Start-up: every folder in every center's asset area gets the access its asset has now — areas written by
   * versions before ADR 0013 (0755, world-readable) are closed once. A folder no asset owns is closed (0700).
   * A folder whose ACL cannot be set is closed too and logged; the gateway still starts. A center whose disk
   * is here is done before the gateway serves; one behind its file service in the background (`whenReachable`).
   */
  async applyAll(): Promise<void> {
    for (const center of this.centers) await this.whenReachable(center, 'asset area: re-applying access', () => this.applyCenter(center));
  }

  private async applyCenter(center: CenterConfig) {
    let applied = 0;
    let failed = 0;
    for (const name of await this.store.assetDirs(center)) {
      try {
        await this.apply(name, center);
        applied++;
      } catch {
        failed++;
      }
    }
    if (failed) this.log.error({ center: center.id, applied, failed }, 'asset area: some asset folders could not be given their access and were closed (0700); install the acl package and restart');
  }

  /**
   * Runs start-up work on a center's storage: at once where the disk is on this host; for a center behind its
   * file service in the background, tried again (1, 2, 4 … 15 s, for up to 10 minutes) while the file service
   * cannot be reached or cannot reach the gateway back — at start-up the gateway is not listening yet when its
   * modules are built, and the file service checks the gateway's storage grant with the gateway (ADR 0016).
   * Anything else is logged once. Never makes the start fail.
   */
  async whenReachable(center: CenterConfig, what: string, work: () => Promise<unknown>): Promise<void> {
    if (this.store.isLocal(center)) {
      await work().catch((err: unknown) => this.log.error({ err, center: center.id }, what));
      return;
    }
    const started = Date.now();
    const attempt = async (delay: number): Promise<void> => {
      if (this.closed) return;
      try {
        await work();
      } catch (err) {
        const unreachable = err instanceof AppError && (err.code === ErrorCode.INTERNAL_FAILED || err.code === ErrorCode.INTERNAL_TIMEOUT);
        if (!unreachable || Date.now() - started > 10 * 60_000) {
          this.log.error({ err, center: center.id }, `${what} failed`);
          return;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            resolve();
          }, delay);
          // close() ends the wait too: a cleared timer alone would leave this promise (and close) hanging.
          this.timers.set(timer, resolve);
        });
        if (!this.closed) await attempt(Math.min(delay * 2, 15_000));
      }
    };
    const run = attempt(1000).finally(() => this.pending.delete(run));
    this.pending.add(run);
  }

  /** Stops the background work of `whenReachable` (the module closes). */
  async close() {
    this.closed = true;
    for (const [t, wake] of this.timers) {
      clearTimeout(t);
      wake();
    }
    this.timers.clear();
    await Promise.all([...this.pending]);
  }
}
