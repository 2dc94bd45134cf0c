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

/**
 * Gives every platform user a POSIX account on a center the first time they use it. The static pool hands
 * out `${prefix}${n}` / uid `uidStart+n` in order (dev/test, and sites that pre-create accounts); a
 * `command` provisioner (site script, e.g. LDAP) can replace `allocate` later behind the same service.
 */
export class ClusterAccountService {
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

  /** The user's account on the center, created (with its home directory) on first use. */
  async ensure(userId: string, subCenterId: string): Promise<ClusterAccount> {
    const center = this.centers.find((c) => c.id === subCenterId);
    if (!center) throw notFound('算力分中心');
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await this.repo.find(userId, subCenterId);
      if (existing) {
        await this.storage.of(center).ensureHome(existing.account);
        return (await this.list(userId, subCenterId))[0];
      }
      const n = await this.repo.countOfCenter(subCenterId);
      if (n >= center.accounts.size) throw new AppError(ErrorCode.INTERNAL_FAILED, '该分中心集群账号已分配完，请联系管理员');
      const account = `${center.accounts.prefix}${String(n + 1).padStart(4, '0')}`;
      // The home as the center's hosts see it (jobs, shells), whether or not this host has the disk.
      const homeDir = jobHomeOf(center, account);
      // Losing a race to another request just means the next number: retry (the next round makes the home).
      await this.repo.tryInsert({ userId, subCenterId, account, uid: uidOfAccount(center, account), homeDir, now: this.clock() });
    }
    throw new AppError(ErrorCode.INTERNAL_FAILED);
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
