import type { AdminOverview, AdminOverviewQuery, OverviewCenter } from '@suanli/contracts';
import { isAccelerator, type CenterConfig } from '../../centers/centers';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { CenterStates } from '../center/center.service';

const DAY_MS = 24 * 3600_000;
/** Days are calendar days in UTC+8, as the records API counts them. */
const CST_MS = 8 * 3600_000;

/** What 平台概览 reads, each a port of the module that owns the data (no table of theirs is read here). */
export interface OverviewSources {
  /** The user directory: accounts by status, and those created since a time. */
  accounts(since: number): Promise<{ total: number; active: number; disabled: number; recent: number }>;
  /** The task module's usage port: tasks holding cards now per center and card type. */
  running(): Promise<{ subCenterId: string; cardTypeId: string; tasks: number; cards: number }[]>;
  /** The order module's records: card-seconds per day (`YYYY-MM-DD`) in [from, to). */
  days(from: number, to: number): Promise<Map<string, { sold: number; granted: number; consumed: number }>>;
  /** The center module: each center's live status. */
  states: CenterStates;
}

/** 运营管理 › 平台概览: composes the owners' figures into one answer; holds no data of its own. */
export class OverviewService {
  constructor(
    private readonly sources: OverviewSources,
    private readonly centers: CenterConfig[],
    private readonly access: Pick<AccessService, 'require'>,
    private readonly clock: () => number,
  ) {}

  async get(p: Principal, q: AdminOverviewQuery): Promise<AdminOverview> {
    this.access.require(p, 'overview.read');
    const now = this.clock();
    // The range ends with today (UTC+8) and covers `days` whole days.
    const today = Math.floor((now + CST_MS) / DAY_MS);
    const from = (today - q.days + 1) * DAY_MS - CST_MS;
    const to = (today + 1) * DAY_MS - CST_MS;
    const [accounts, running, perDay, states] = await Promise.all([this.sources.accounts(now - 7 * DAY_MS), this.sources.running(), this.sources.days(from, to), this.sources.states()]);

    const centers: OverviewCenter[] = this.centers.map((c) => {
      const here = running.filter((r) => r.subCenterId === c.id);
      return {
        id: c.id,
        name: c.name,
        status: states.get(c.id)?.status ?? c.status,
        runningTasks: here.reduce((s, r) => s + r.tasks, 0),
        cardTypes: c.cardTypes.map((t) => {
          const rows = here.filter((r) => r.cardTypeId === t.id);
          return {
            id: t.id,
            name: t.name,
            accelerator: isAccelerator(t),
            runningTasks: rows.reduce((s, r) => s + r.tasks, 0),
            cardsInUse: rows.reduce((s, r) => s + r.cards, 0),
            totalCards: t.nodes * t.cardsPerNode,
          };
        }),
      };
    });

    const days = [];
    for (let d = today - q.days + 1; d <= today; d++) {
      const day = new Date(d * DAY_MS).toISOString().slice(0, 10);
      const v = perDay.get(day);
      days.push({ day, soldCardSeconds: v?.sold ?? 0, grantedCardSeconds: v?.granted ?? 0, consumedCardSeconds: v?.consumed ?? 0 });
    }
    return {
      users: { total: accounts.total, active: accounts.active, disabled: accounts.disabled, newLast7Days: accounts.recent },
      centers,
      days,
      time: now,
    };
  }
}
