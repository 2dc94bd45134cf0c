import type { CenterConfig, SlurmSchedulerConfig } from '../../centers/centers';
import type { AccountedJob } from '../executor';
import { setAssociationLimit } from './balance-limit';
import type { Adapter, SlurmCall } from './v0038';

/**
 * What the Slurm executor does for the center's pool of cluster accounts rather than for one task's job
 * (issue 25): the balance limits on the accounts' associations and the reading of every job in accounting
 * (outside jobs). The executor delegates to it with its own adapter and call (token and timeout plumbing).
 */
export class SlurmPool {
  private readonly cfg: SlurmSchedulerConfig;

  constructor(
    private readonly center: CenterConfig,
    private readonly adapter: Adapter,
    private readonly call: SlurmCall,
    private readonly now: () => number,
  ) {
    if (center.scheduler.kind !== 'slurm') throw new Error(`center ${center.id} is not a Slurm center`);
    this.cfg = center.scheduler;
  }

  /**
   * The account the pool-wide reads are asked as (capacity, every job in accounting): the pool's first. With
   * PrivateData unset (docs/operations/slurm-center.md) any user reads every job and node.
   */
  get reader(): string {
    return `${this.center.accounts.prefix}${'1'.padStart(4, '0')}`;
  }

  /**
   * `GrpTRES=gres/<name>=0` on the account's association for every gres name of the center's card types, or
   * no limit (balance-limit.ts), as the center's `adminUser`. One limit covers every card type of a gres name
   * (docs/operations/slurm-center.md, "Balance limits"); a center without gres card types has nothing to hold.
   */
  async limitAccount(account: string, open: boolean): Promise<boolean> {
    const admin = this.cfg.adminUser;
    const names = [...new Set(this.center.cardTypes.flatMap((t) => (t.gres ? [t.gres.split(':')[0]] : [])))];
    if (!admin || !names.length) return false;
    for (const gres of names) {
      await setAssociationLimit(this.call, admin, { cluster: this.cfg.cluster, account: this.cfg.account, user: account, gres, cards: open ? null : 0 });
    }
    return true;
  }

  /** Every job of the cluster in accounting since `since` (epoch ms), asked as `reader`, as `states` reads the controller. */
  async accountedJobs(since: number): Promise<AccountedJob[]> {
    return this.adapter.accountingSince(this.call, this.reader, { cluster: this.cfg.cluster, seconds: (this.now() - since) / 1000 });
  }
}
