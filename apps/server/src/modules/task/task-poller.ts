import { randomUUID } from 'node:crypto';
import type { LeaseRepository } from '../../db/lease.repository';

export interface PollerOptions {
  /** How often each center is asked about its active jobs (the budget: ≤ 2 s). */
  intervalMs?: number;
  /** A leader that stops renewing loses its centers after this long (handover ≤ 10 s). */
  leaseMs?: number;
  /**
   * A center whose last poll found no task to watch is polled again after this long (default 5 intervals),
   * or at the next tick once `wake` says work may have begun there.
   */
  idleMs?: number;
  /** This process's name in the lease table (tests run two "gateways" in one process). */
  holder?: string;
}

interface Log {
  info: (o: object, msg: string) => void;
  warn: (o: object, msg: string) => void;
}

/**
 * One poller per center across all gateway replicas: every tick each replica not leading a center tries to
 * take its lease, and the holder renews it once a third of it has passed; only the holder polls. The cost is
 * one scheduler call per center per tick however many consoles are open (they get `task.state.changed` over
 * their sockets). A replica that dies simply stops renewing, and another takes the center over within
 * `leaseMs` + one tick.
 *
 * A center with nothing to watch (no task stored and not ended) is polled every `idleMs` instead of every
 * tick: what starts work there — a task's state change, on this replica or (through the bus) another — calls
 * `wake`. The idle poll still finds what comes without an event (a task a dead gateway stored, a task waiting
 * for data) and runs the after-poll work (metering, resource samples), whose periods are far longer.
 */
export class TaskPoller {
  readonly holder: string;
  private readonly intervalMs: number;
  private readonly idleMs: number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private readonly leading = new Set<string>();
  /** When this replica last took or renewed each center's lease it leads: by its clock and in real time. */
  private readonly renewedAt = new Map<string, { at: number; real: number }>();
  private readonly busy = new Set<string>();
  /** Centers whose last poll found nothing to watch, with when it ended (real time: a scheduling matter). */
  private readonly idleSince = new Map<string, number>();
  /** Counts `wake` calls: a wake during a poll that found nothing keeps the center from going idle. */
  private wakes = 0;
  private stopped = false;

  constructor(
    private readonly centerIds: readonly string[],
    private readonly leases: LeaseRepository,
    /** One poll of the center; answers whether it has tasks to watch (false: it may idle). */
    private readonly pollCenter: (centerId: string) => Promise<boolean>,
    private readonly clock: () => number,
    private readonly log: Log,
    opts: PollerOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.idleMs = opts.idleMs ?? 5 * this.intervalMs;
    this.leaseMs = opts.leaseMs ?? 6000;
    this.holder = opts.holder ?? randomUUID();
  }

  start() {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  /** Centers this replica polls right now. */
  isLeading(centerId: string) {
    return this.leading.has(centerId);
  }

  /** Work may have begun at some center (a task changed state): every center is polled at the next tick. */
  wake() {
    this.wakes++;
    this.idleSince.clear();
  }

  /** One round over every center (tests call it directly instead of waiting for the timer). */
  async tick() {
    await Promise.all(this.centerIds.map((id) => this.tickCenter(id)));
  }

  private async tickCenter(centerId: string) {
    // A slow scheduler must not pile up polls of the same center.
    if (this.busy.has(centerId) || this.stopped) return;
    this.busy.add(centerId);
    try {
      const mine = await this.hold(centerId);
      if (mine !== this.leading.has(centerId)) {
        if (mine) this.leading.add(centerId);
        else this.leading.delete(centerId);
        this.log.info({ centerId, holder: this.holder, leading: mine }, mine ? 'poller: leading center' : 'poller: lost center');
      }
      if (!mine) {
        this.idleSince.delete(centerId);
        return;
      }
      const idle = this.idleSince.get(centerId);
      if (idle !== undefined && performance.now() - idle < this.idleMs) return;
      const wakes = this.wakes;
      const watching = await this.pollCenter(centerId);
      if (watching || wakes !== this.wakes) this.idleSince.delete(centerId);
      else this.idleSince.set(centerId, performance.now());
    } catch (err) {
      this.log.warn({ err, centerId }, 'poller: round failed');
    } finally {
      this.busy.delete(centerId);
    }
  }

  /**
   * Takes or renews the center's lease; a leader whose lease has two thirds or more left keeps it without a
   * write (an idle gateway used to write a row per center per tick, most of its database work). Nobody else
   * can take the lease before it runs out, and a release is only ever the holder's own. A third is counted
   * both on the clock the lease is written with and in real time: a clock that stands still (tests) or jumps
   * back must not keep a leader from learning, within a third of the lease, that another replica took over.
   */
  private async hold(centerId: string): Promise<boolean> {
    const now = this.clock();
    const real = performance.now();
    const renewed = this.renewedAt.get(centerId);
    const third = this.leaseMs / 3;
    if (this.leading.has(centerId) && renewed && now >= renewed.at && now - renewed.at < third && real - renewed.real < third) return true;
    const mine = await this.leases.acquire(`poller:${centerId}`, this.holder, now, this.leaseMs);
    if (mine) this.renewedAt.set(centerId, { at: now, real });
    else this.renewedAt.delete(centerId);
    return mine;
  }

  /** Stops polling and hands every center over at once. */
  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.busy.size) await new Promise((r) => setTimeout(r, 20));
    await Promise.all([...this.leading].map((id) => this.leases.release(`poller:${id}`, this.holder).catch(() => {})));
    this.leading.clear();
    this.renewedAt.clear();
    this.idleSince.clear();
  }
}
