import { isTerminal, type JobState } from '@suanli/contracts';
import type { MeterTask, TaskMeterSource } from '../task/task-compute';
import type { MeteringRepository } from './metering.repository';
import type { BalanceLimits, LimitPass } from './balance-limit.service';
import type { MeteringService } from './metering.service';
import { OUTSIDE_KIND, type OutsideJobService } from './outside-job.service';

/**
 * Ended tasks are looked for from the cursor minus this: a task's end is stamped (its update_time) before
 * its transaction commits and by whichever replica's clock, so a pass starting in between must not miss it.
 * Those already settled are skipped by their meter.
 */
const CURSOR_MARGIN_MS = 5 * 60_000;

export interface PassResult {
  /** Tasks looked at. */
  tasks: number;
  /** Tasks whose meter moved. */
  metered: number;
  /** Card-seconds drawn (net of returns). */
  drawn: number;
  /** Tasks stopped because their compute power ran out. */
  stopped: string[];
  /** The balance limits' changes on the scheduler (issue 25). */
  limits?: LimitPass;
}

interface Log {
  info: (o: object, msg: string) => void;
  warn: (o: object, msg: string) => void;
}

/**
 * When metering runs (ADR 0015): a pass over a center right after the task poller's round of it, on the
 * replica that leads the center (the poller's lease), at most once per period. Running after the poll means
 * the tasks' states and end times are the scheduler's as of a moment ago — after a gateway was down, the ends
 * the poll just stored are metered to the second, not drawn up to now and returned later — and the poller's
 * lease makes it one metering loop per center per deployment without a second election.
 */
export class MeteringRunner {
  private readonly last = new Map<string, number>();
  private readonly busy = new Set<string>();
  private readonly startedAt: number;
  /** Centers whose balance limits this process has written in full since it began leading them. */
  private readonly asserted = new Set<string>();

  constructor(
    private readonly service: MeteringService,
    private readonly repo: MeteringRepository,
    private readonly source: TaskMeterSource,
    private readonly centerIds: readonly string[],
    private readonly clock: () => number,
    private readonly log: Log,
    /** The balance enforced by the scheduler (issue 25): every account of the center after each pass. */
    private readonly limits?: Pick<BalanceLimits, 'center'>,
    /** Jobs run outside the console (issue 25), read from the centers' accounting before each pass. */
    private readonly outside?: OutsideJobService,
  ) {
    this.startedAt = clock();
  }

  /** The poller's hook: a pass over the center when its period has passed (a failing one is logged). */
  async afterPoll(centerId: string): Promise<void> {
    if (this.clock() - (this.last.get(centerId) ?? this.startedAt) < this.service.periodMs || this.busy.has(centerId)) return;
    this.busy.add(centerId);
    try {
      await this.passCenter(centerId);
    } catch (err) {
      this.log.warn({ err, centerId }, 'metering: pass failed; the next one catches up');
    } finally {
      this.busy.delete(centerId);
    }
  }

  /** One pass now, over one center or every center (tests and benchmarks call it directly). */
  async pass(centerId?: string): Promise<PassResult> {
    const total: PassResult = { tasks: 0, metered: 0, drawn: 0, stopped: [] };
    for (const id of centerId ? [centerId] : this.centerIds) {
      const r = await this.passCenter(id);
      total.tasks += r.tasks;
      total.metered += r.metered;
      total.drawn += r.drawn;
      total.stopped.push(...r.stopped);
      if (r.limits) {
        total.limits ??= { limited: [], opened: [], failed: [] };
        total.limits.limited.push(...r.limits.limited);
        total.limits.opened.push(...r.limits.opened);
        total.limits.failed.push(...r.limits.failed);
      }
    }
    return total;
  }

  private async passCenter(centerId: string): Promise<PassResult> {
    const now = this.clock();
    this.last.set(centerId, now);
    // A center not passed over yet starts where metering began (migration 0024's `*` row).
    const cursor = (await this.repo.cursor(centerId)) ?? (await this.repo.cursor('*')) ?? now;
    const since = cursor - CURSOR_MARGIN_MS;
    const [running, ended] = await Promise.all([this.source.running(centerId), this.source.endedSince(centerId, since)]);
    const outside = await this.outsideJobs(centerId);
    const seen = new Set([...running, ...ended, ...outside].map((t) => t.id));
    // Metered before, neither running nor recently ended (requeued, or ended before the cursor's margin).
    // Outside jobs' meters (`<center>:<jobId>`) are never tasks: a task id has no colon.
    const open = (await this.repo.openMeters(centerId)).filter((id) => !seen.has(id) && !id.includes(':'));
    let others: MeterTask[] = [];
    if (open.length) {
      const found = await this.source.byIds(open);
      const present = new Set(found.map((t) => t.id));
      // Deleted without a final draw (the delete settles first, so only rows removed by hand): nothing more.
      await this.repo.closeMeters(
        open.filter((id) => !present.has(id)),
        now,
      );
      // A task back in the queue (Slurm requeue) is metered again once it runs.
      others = found.filter((t) => isTerminal(t.state as JobState));
    }
    const tasks = [...running, ...ended, ...others, ...outside];
    const r = await this.service.meter(tasks, now);
    const stopped: string[] = [];
    for (const t of r.empty) {
      try {
        // An outside job has no task to move: it is cancelled in the scheduler as its account.
        if (t.kind === OUTSIDE_KIND ? await this.outside?.stop(t) : await this.source.stopUnderpowered(t.id, t.stopReason)) stopped.push(t.id);
      } catch (err) {
        this.log.warn({ err, taskId: t.id }, 'metering: stopping an underpowered task failed; the next pass tries again');
      }
    }
    if (stopped.length) this.log.info({ centerId, tasks: stopped }, 'metering: tasks stopped, compute power used up');
    await this.repo.setCursor(centerId, now);
    return { tasks: tasks.length, metered: r.metered, drawn: r.drawn, stopped, limits: await this.limitPass(centerId) };
  }

  /**
   * The balance limits of every account of the center, after the draws: the first pass since this process
   * leads the center writes them all again (the leader's re-assertion), later ones only what changed. A
   * failure is logged and left to the next pass; it never fails the metering pass.
   */
  private async limitPass(centerId: string): Promise<LimitPass | undefined> {
    if (!this.limits) return undefined;
    const force = !this.asserted.has(centerId);
    try {
      const r = await this.limits.center(centerId, force);
      if (!r.failed.length) this.asserted.add(centerId);
      return r;
    } catch (err) {
      this.log.warn({ err, centerId }, 'balance limits: pass failed; the next one tries again');
      return undefined;
    }
  }

  /**
   * The center's outside jobs to meter: accounting read first (from its own cursor); when it cannot be read
   * the jobs already stored are metered as they stand and the next pass reads the gap.
   */
  private async outsideJobs(centerId: string): Promise<MeterTask[]> {
    if (!this.outside?.reads(centerId)) return [];
    try {
      await this.outside.sync(centerId, this.source);
    } catch (err) {
      this.log.warn({ err, centerId }, 'metering: accounting unreadable; outside jobs metered as last read');
    }
    return this.outside.meterable(centerId);
  }
}
