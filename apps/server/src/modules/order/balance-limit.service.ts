import { isAccelerator, type CenterConfig } from '../../centers/centers';
import type { Executor } from '../../executors/executor';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { TeamPayers } from '../team/team.service';
import type { BalanceLimitRepository } from './balance-limit.repository';

interface Log {
  info: (o: object, msg: string) => void;
  warn: (o: object, msg: string) => void;
}

export interface LimitPass {
  /** Accounts the scheduler now holds (set this pass). */
  limited: string[];
  /** Accounts whose limit was lifted this pass. */
  opened: string[];
  /** Accounts the scheduler could not be told about: the state is kept, the next pass tries again. */
  failed: string[];
}

/**
 * The balance enforced by the scheduler (issue 25, item 3; docs/operations/slurm-center.md "Balance limits").
 * A cluster account is held on a center — every new card job of it waits in Slurm with `AssocGrpGRES`, by
 * whatever route it came — while nobody who may pay for its jobs has compute power there: neither its owner
 * nor a team the owner belongs to (a team-paid task is submitted as the member's own cluster account, so
 * holding a team-funded member would hold the team's tasks too). Lifted as soon as some power is there.
 *
 * When: after each grant and purchase credit for the users it concerns (at once, on the replica that
 * credited), and on every metering pass of a center for all its accounts (on the replica leading the center:
 * draws, expiries, team changes); the leader's first pass writes every account's limit again, whatever the
 * table says (a slurmdbd restored from a backup, a limit changed by hand). Otherwise the scheduler is told
 * only when the wanted state differs from the one recorded (migration 0034), and the record is written only
 * after Slurm accepted the change, so a failed call is retried by the next pass and never lost.
 */
export class BalanceLimits {
  private readonly centers: Map<string, CenterConfig>;
  /** Centers whose executor cannot hold jobs (local; Slurm without adminUser): never asked again. */
  private readonly unenforced = new Set<string>();
  /** One change at a time per center in this process, so two quick credits do not race their own writes. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly repo: BalanceLimitRepository,
    centers: CenterConfig[],
    private readonly executors: ReadonlyMap<string, Pick<Executor, 'limitAccount'>>,
    private readonly accounts: Pick<ClusterAccountService, 'allOn' | 'accountsOn'>,
    private readonly clock: () => number,
    private readonly log: Log,
    private readonly teams?: Pick<TeamPayers, 'payersOf'>,
    /** Told when the user's account was held or opened (`comp-power.changed`: the console shows why). */
    private readonly tell: (userId: string) => Promise<void> = async () => {},
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /**
   * After a credit (grant, paid order) to these users — or to a team, then its members: their accounts on
   * every center, now. Never throws: the credit is committed, and the leader's next pass catches up.
   */
  async owners(userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    for (const center of this.centers.values()) {
      if (this.unenforced.has(center.id)) continue;
      try {
        const accounts = await this.accounts.accountsOn(center.id, userIds);
        await this.serial(center.id, () => this.apply(center, accounts, false));
      } catch (err) {
        this.log.warn({ err, centerId: center.id }, 'balance limits: update after a credit failed; the next metering pass catches up');
      }
    }
  }

  /** The user's accounts held now (what 费用明细's balance shows, issue 25). */
  async heldOf(userId: string): Promise<{ subCenterId: string; account: string }[]> {
    return (await this.repo.heldOf(userId)).map((r) => ({ subCenterId: r.sub_center_id, account: r.account }));
  }

  /** Every account of the center (the metering pass); `force` writes each limit whatever was recorded. */
  async center(centerId: string, force = false): Promise<LimitPass> {
    const center = this.centers.get(centerId);
    if (!center || this.unenforced.has(centerId)) return { limited: [], opened: [], failed: [] };
    return this.serial(centerId, async () => this.apply(center, await this.accounts.allOn(centerId), force));
  }

  private serial<T>(centerId: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(centerId) ?? Promise.resolve()).catch(() => undefined).then(fn);
    this.chains.set(centerId, next);
    return next;
  }

  private async apply(center: CenterConfig, accounts: { userId: string; account: string }[], force: boolean): Promise<LimitPass> {
    const out: LimitPass = { limited: [], opened: [], failed: [] };
    const executor = this.executors.get(center.id);
    // Cards are what a limit holds (Slurm: gres); CPU-only card types are neither held nor counted (a known gap).
    const cardTypeIds = center.cardTypes.filter(isAccelerator).map((t) => t.id);
    if (!executor || !accounts.length || !cardTypeIds.length) return out;
    const now = this.clock();
    const userIds = accounts.map((a) => a.userId);
    const teamsOf = this.teams ? await this.teams.payersOf(userIds) : new Map<string, string[]>();
    const powered = await this.repo.powered([...userIds, ...[...teamsOf.values()].flat()], center.id, cardTypeIds, now);
    const states = await this.repo.states(center.id, accounts.map((a) => a.account));
    for (const a of accounts) {
      const open = powered.has(a.userId) || (teamsOf.get(a.userId) ?? []).some((t) => powered.has(t));
      const limited = open ? 0 : 1;
      const row = states.get(a.account);
      if (!force && row && Number(row.limited) === limited) continue;
      try {
        if (!(await executor.limitAccount(a.account, open))) {
          this.unenforced.add(center.id);
          return out;
        }
      } catch (err) {
        this.log.warn({ err, centerId: center.id, account: a.account, open }, 'balance limits: the scheduler was not told; the next pass tries again');
        out.failed.push(a.account);
        continue;
      }
      await this.repo.save({ sub_center_id: center.id, account: a.account, owner_id: a.userId, limited, update_time: now });
      if (!row || Number(row.limited) !== limited) {
        (open ? out.opened : out.limited).push(a.account);
        // An account never recorded and opened changed nothing the user sees.
        if (row || !open) await this.tell(a.userId).catch(() => undefined);
      }
    }
    if (out.limited.length || out.opened.length) this.log.info({ centerId: center.id, ...out }, 'balance limits: changed');
    return out;
  }
}
