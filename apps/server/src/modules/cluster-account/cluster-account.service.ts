import { ErrorCode, type ClusterAccount } from '@suanli/contracts';
import { jobHomeOf, type CenterStorages } from '../../center-storage/center-storage';
import type { CenterConfig } from '../../centers/centers';
import { AppError, notFound } from '../../errors';
import type { ClusterAccountRepository } from './cluster-account.repository';

/**
 * The numeric uid of a pool account on its center: `${prefix}${n}` (n from 1, zero-padded) has uid
 * `uidStart + n - 1` — the rule the pool hands accounts out by, and what the sites' (and the Slurm test
 * harness's) Linux users are created with. Tasks run as this uid; the asset area grants it (ADR 0013).
 */
export function uidOfAccount(center: Pick<CenterConfig, 'accounts'>, account: string): number {
  const n = Number(account.slice(center.accounts.prefix.length));
  if (!account.startsWith(center.accounts.prefix) || !Number.isInteger(n) || n < 1) throw new Error(`not an account of the pool ${center.accounts.prefix}: ${account}`);
  return center.accounts.uidStart + n - 1;
}

/** How long a home seen in place is not asked about again. */
const HOME_RECHECK_MS = 5 * 60_000;

/**
 * Gives every platform user a POSIX account on a center the first time they use it. The static pool hands
 * out `${prefix}${n}` / uid `uidStart+n` in order (dev/test, and sites that pre-create accounts); a
 * `command` provisioner (site script, e.g. LDAP) can replace `allocate` later behind the same service.
 */
export class ClusterAccountService {
  /** When this process last saw each `center:account` home in place (see `homeOf`). */
  private readonly homesMade = new Map<string, number>();
  private readonly created: ((userId: string, subCenterId: string) => Promise<void>)[] = [];

  constructor(
    private readonly repo: ClusterAccountRepository,
    private readonly centers: CenterConfig[],
    private readonly clock: () => number,
    /** Where the home is made: the center's storage, on this host or through its file service (ADR 0016). */
    private readonly storage: CenterStorages,
  ) {}

  async list(userId: string, subCenterId?: string): Promise<ClusterAccount[]> {
    const rows = await this.repo.listOfUser(userId);
    return rows
      .filter((r) => !subCenterId || r.sub_center_id === subCenterId)
      .map((r) => ({
        subCenterId: r.sub_center_id,
        subCenterName: this.centers.find((c) => c.id === r.sub_center_id)?.name ?? r.sub_center_id,
        account: r.account,
        uid: r.uid,
        homeDir: r.home_dir,
        status: r.status === 'disabled' ? 'disabled' : 'active',
      }));
  }

  /**
   * Runs `fn` after a user's account on a center was created (and its home made): folders the account must be
   * let into — its teams' (ADR 0018) — take it in. A failing listener is the listener's to log.
   */
  afterCreate(fn: (userId: string, subCenterId: string) => Promise<void>) {
    this.created.push(fn);
  }

  /** The user's account on the center, created (with its home directory) on first use. */
  async ensure(userId: string, subCenterId: string): Promise<ClusterAccount> {
    const center = this.centers.find((c) => c.id === subCenterId);
    if (!center) throw notFound('算力分中心');
    let inserted = false;
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await this.repo.find(userId, subCenterId);
      if (existing) {
        await this.homeOf(center, existing.account);
        // Only the call that made the account tells: the listeners run once per account.
        if (inserted) for (const fn of this.created) await fn(userId, subCenterId).catch(() => {});
        return (await this.list(userId, subCenterId))[0];
      }
      const n = await this.repo.countOfCenter(subCenterId);
      if (n >= center.accounts.size) throw new AppError(ErrorCode.INTERNAL_FAILED, '该分中心集群账号已分配完，请联系管理员');
      const account = `${center.accounts.prefix}${String(n + 1).padStart(4, '0')}`;
      // The home as the center's hosts see it (jobs, shells), whether or not this host has the disk.
      const homeDir = jobHomeOf(center, account);
      // Losing a race to another request just means the next number: retry (the next round makes the home).
      inserted = (await this.repo.tryInsert({ userId, subCenterId, account, uid: uidOfAccount(center, account), homeDir, now: this.clock() })) || inserted;
    }
    throw new AppError(ErrorCode.INTERNAL_FAILED);
  }

  /**
   * Makes sure the account's home exists. Every submit, shell and upload asks, so a home this process made (or
   * found) recently is not asked about again, and one it made before is not refused because the center's file
   * service is down for a moment: a job does not need the file service, and the home is checked again later.
   */
  private async homeOf(center: CenterConfig, account: string) {
    const key = `${center.id}:${account}`;
    const made = this.homesMade.get(key);
    // Wall-clock (tests freeze the app's clock).
    if (made !== undefined && Date.now() - made < HOME_RECHECK_MS) return;
    try {
      await this.storage.of(center).ensureHome(account);
      this.homesMade.set(key, Date.now());
    } catch (err) {
      if (made === undefined) throw err;
    }
  }

  /** Every account handed out on a center, with its user (the balance limits' pass over a center, issue 25). */
  async allOn(subCenterId: string): Promise<{ userId: string; account: string }[]> {
    return (await this.repo.allOnCenter(subCenterId)).map((r) => ({ userId: r.user_id, account: r.account }));
  }

  /** The accounts on a center of those of `userIds` that have one there (none is made). */
  async accountsOn(subCenterId: string, userIds: string[]): Promise<{ userId: string; account: string; uid: number }[]> {
    const center = this.centers.find((c) => c.id === subCenterId);
    if (!center || !userIds.length) return [];
    const rows = await this.repo.listOnCenter(subCenterId, [...new Set(userIds)]);
    return rows.map((r) => ({ userId: r.user_id, account: r.account, uid: uidOfAccount(center, r.account) }));
  }

  /** Who holds each of these accounts on the center, and since when (accounts nobody holds are absent). */
  async ownersOf(subCenterId: string, accounts: string[]): Promise<Map<string, { userId: string; since: number }>> {
    const out = new Map<string, { userId: string; since: number }>();
    const all = [...new Set(accounts)];
    for (let i = 0; i < all.length; i += 500) for (const r of await this.repo.ownersOn(subCenterId, all.slice(i, i + 500))) out.set(r.account, { userId: r.user_id, since: Number(r.create_time) });
    return out;
  }
}
