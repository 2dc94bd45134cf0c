import { randomUUID } from 'node:crypto';
import type { LeaseRepository } from '../../db/lease.repository';

export interface PollerOptions {
  /** How often each center is asked about its active jobs (the budget: ≤ 2 s). */
  intervalMs?: number;
  /** A leader that stops renewing loses its centers after this long (handover ≤ 10 s). */
  leaseMs?: number;
  /** This process's name in the lease table (tests run two "gateways" in one process). */
  holder?: string;
}

interface Log {
  info: (o: object, msg: string) => void;
  warn: (o: object, msg: string) => void;
}

/**
 * One poller per center across all gateway replicas: every tick each replica tries to take or renew the
 * center's lease; only the holder polls. The cost is one scheduler call per center per tick however many
 * consoles are open (they get `task.state.changed` over their sockets). A replica that dies simply stops
 * renewing, and another takes the center over within `leaseMs` + one tick.
 */
export class TaskPoller {
  readonly holder: string;
  private readonly intervalMs: number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private readonly leading = new Set<string>();
  private readonly busy = new Set<string>();
  private stopped = false;

  constructor(
    private readonly centerIds: readonly string[],
    private readonly leases: LeaseRepository,
    private readonly pollCenter: (centerId: string) => Promise<void>,
    private readonly clock: () => number,
    private readonly log: Log,
    opts: PollerOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 1000;
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

  /** One round over every center (tests call it directly instead of waiting for the timer). */
  async tick() {
    await Promise.all(this.centerIds.map((id) => this.tickCenter(id)));
  }

  private async tickCenter(centerId: string) {
    // A slow scheduler must not pile up polls of the same center.
    if (this.busy.has(centerId) || this.stopped) return;
    this.busy.add(centerId);
    try {
      const name = `poller:${centerId}`;
      const mine = await this.leases.acquire(name, this.holder, this.clock(), this.leaseMs);
      if (mine !== this.leading.has(centerId)) {
        if (mine) this.leading.add(centerId);
        else this.leading.delete(centerId);
        this.log.info({ centerId, holder: this.holder, leading: mine }, mine ? 'poller: leading center' : 'poller: lost center');
      }
      if (mine) await this.pollCenter(centerId);
    } catch (err) {
      this.log.warn({ err, centerId }, 'poller: round failed');
    } finally {
      this.busy.delete(centerId);
    }
  }

  /** Stops polling and hands every center over at once. */
  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.busy.size) await new Promise((r) => setTimeout(r, 20));
    await Promise.all([...this.leading].map((id) => this.leases.release(`poller:${id}`, this.holder).catch(() => {})));
    this.leading.clear();
  }
}
