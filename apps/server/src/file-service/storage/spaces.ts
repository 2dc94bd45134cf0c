import fsp from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { spaceKey, type FileUser } from '../identity';
import { fileErr, LocalAccountFs, type AccountFs } from './account-fs';
import { HashIndex } from './hash-index';
import { UsageMeter } from './usage';

/** Opens an account's space: in this process (virtual accounts) or in a worker running as the account. */
export interface AccountFsFactory {
  open(user: FileUser): Promise<AccountFs>;
  close(): Promise<void>;
}

/** Embedded default: the operations run here, as the service's own user (single-tenant; see ADR 0004). */
export class InProcessAccounts implements AccountFsFactory {
  constructor(private readonly stagingRoot: string) {}
  async open(user: FileUser): Promise<AccountFs> {
    // A team's folder is the team module's (made and ACL'd there, ADR 0018): never created or chmod-ed here.
    // A home is made (0755) by the first operation that finds it missing, not by a mkdir on every open.
    return new LocalAccountFs(user.homeDir, path.join(this.stagingRoot, user.account), user.team ? { shared: true } : { homeMode: 0o755 });
  }
  async close() {}
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** A running admission of bytes against an account's quota (see Spaces.quotaGuard). */
export interface QuotaGuard {
  take(n: number): void;
  release(): void;
}

/**
 * What the file services of one center share: how an account's space is opened, the quota meter and the
 * instant-upload index.
 */
export class Spaces {
  readonly index: HashIndex;
  readonly usage: UsageMeter;
  readonly stagingRoot: string;
  private readonly platform: InProcessAccounts;

  constructor(
    readonly center: CenterConfig,
    readonly accounts: AccountFsFactory,
  ) {
    this.stagingRoot = path.join(center.storageRoot, '.uploads');
    this.platform = new InProcessAccounts(this.stagingRoot);
    this.index = new HashIndex(path.join(center.storageRoot, '.meta', 'index.db'));
    // Real time, not the injected clock: this TTL only bounds how stale a cached walk of the disk may be.
    this.usage = new UsageMeter(Date.now);
  }

  /** Runs `fn` with the caller's space open, releasing it afterwards. */
  /**
   * Opens a space: an account's through the accounts factory (a worker running as the account where accounts
   * are real), the platform's asset area (a sync of a dataset/model version, ADR 0010 §8) always in this
   * process, as the service that owns it.
   */
  open(user: FileUser): Promise<AccountFs> {
    return user.platform ? this.platform.open(user) : this.accounts.open(user);
  }

  async with<T>(user: FileUser, fn: (fs: AccountFs) => Promise<T>): Promise<T> {
    const fs = await this.open(user);
    try {
      return await fn(fs);
    } finally {
      fs.release();
    }
  }

  /**
   * Admits bytes against the caller's quota while they stream: stored usage (home + staged chunks, minus
   * what this write replaces) + everything of theirs in flight must stay within the quota, else 1309.
   */
  async quotaGuard(user: FileUser, fs: AccountFs, replaced: number): Promise<QuotaGuard> {
    // The asset area is the platform's, not a user's: no quota.
    if (user.platform) return { take: () => {}, release: () => {} };
    const quotaBytes = this.center.quotaBytes;
    const stored = (await this.storedBytes(user, fs)) - replaced;
    let taken = 0;
    return {
      take: (n: number) => {
        this.usage.reserve(spaceKey(user), n);
        taken += n;
        const used = stored + this.usage.inflightOf(spaceKey(user));
        if (used > quotaBytes) throw fileErr(ErrorCode.NO_SPACE, `配额 ${mib(quotaBytes)}，已用 ${mib(stored)}`);
      },
      release: () => {
        this.usage.release(spaceKey(user), taken);
        taken = 0;
      },
    };
  }

  /** The home's bytes plus the complete chunks staged for the account (cached briefly, see UsageMeter). */
  storedBytes(user: FileUser, fs: AccountFs) {
    // A team's folder has a quota of its own (its files); the member's staged chunks count in their home's.
    return this.usage.stored(spaceKey(user), async () => (await fs.treeBytes([])) + (user.team ? 0 : await fs.staging.stagedBytes()));
  }

  /** Where an account's home is on this center's storage (the layout the domain fixes). */
  homeOf(account: string) {
    return path.join(this.center.storageRoot, 'home', account);
  }

  /** Accounts with a staging directory (for the cleanup of abandoned uploads). */
  async stagedAccounts(): Promise<string[]> {
    return fsp.readdir(this.stagingRoot).catch(() => []);
  }

  async close() {
    this.index.close();
    await this.accounts.close();
  }
}
