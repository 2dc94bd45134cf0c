import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, errorMessage, type SyncState } from '@suanli/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { LeaseRepository } from '../../db/lease.repository';
import { AppError } from '../../errors';
import type { SyncReceiver } from '../../file-service/sync.service';
import type { SyncRepository, SyncRow } from './sync.repository';
import { grantHash, isFinal } from './sync.service';

/** "Not reached": the receiving or the source file service is down, restarting or unreachable. */
const RETRYABLE = new Set<number>([ErrorCode.INTERNAL_FAILED, ErrorCode.INTERNAL_TIMEOUT]);
const CANCEL = Symbol('cancel');
/** How long a cancel call waits for another replica to end the job before it answers the state it has. */
const CANCEL_WAIT_MS = 20_000;
const CLOSING = Symbol('closing');
/** Another replica took the job over (this one missed renewing its lease) or ended it. */
const LOST = Symbol('lost');
/** Longest wait between two attempts to remove what an ended job left on a receiver that was not reached. */
const DISCARD_MAX_DELAY_MS = 10 * 60_000;

export interface SyncRunnerOptions {
  /** A job whose file services stay unreachable this long after its last progress fails (default 10 min). */
  retryWindowMs?: number;
  /** Longest wait between two attempts (default 15 s; the first retries come after 1, 2, 4, 8 s). */
  maxDelayMs?: number;
  /** Progress is written and pushed at most this often (default 500 ms). */
  progressEveryMs?: number;
  /**
   * A job's runner holds the lease `sync:<id>` this long and renews it every third of it; replicas look for
   * jobs whose holder stopped renewing as often (default 15 s).
   */
  leaseMs?: number;
  /** This process's name in the lease table (tests run two "gateways" in one process). */
  holder?: string;
}

/**
 * Runs the active sync jobs of this gateway (ADR 0010). Each attempt mints a fresh grant (only its hash is
 * stored) and asks the receiving file service to pull; the receiver resumes from what it staged, so an
 * attempt after any interruption — the receiver or the source killed, the network cut, this gateway
 * restarted — continues instead of starting over. Interruptions are retried with backoff for as long as
 * the job made progress within the retry window; refusals (no space, a name taken, a checksum that does not
 * match) fail the job at once.
 *
 * Across gateway replicas one runner runs a job: the one holding its lease `sync:<id>` (the same lease rows
 * as the task poller's). Jobs whose holder stopped renewing — a gateway killed or stopped — are taken over by
 * `resumeAll`, which runs at start and every `leaseMs`. A cancel that reaches a replica not running the job
 * is written on the job (`cancel_requested`); the holder sees it when it renews and cancels there.
 *
 * A job that ends while its receiver cannot be reached leaves its hidden folder and staged chunks there; the
 * job records that (`discard_after`) and the same periodic sweep asks the receiver again, under the job's
 * lease, with a growing delay (its age since it ended, from leaseMs up to 10 min) until it answers.
 */
export class SyncRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly retryWindowMs: number;
  private readonly maxDelayMs: number;
  private readonly progressEveryMs: number;
  private readonly leaseMs: number;
  readonly holder: string;
  private sweeper: NodeJS.Timeout | null = null;
  private discarding: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly repo: SyncRepository,
    private readonly leases: LeaseRepository,
    private readonly receiverFor: (centerId: string) => SyncReceiver,
    private readonly clock: () => number,
    private readonly events: { changed(row: SyncRow): Promise<void>; finished(row: SyncRow): Promise<void> },
    private readonly log: FastifyBaseLogger,
    opts: SyncRunnerOptions = {},
  ) {
    this.retryWindowMs = opts.retryWindowMs ?? 10 * 60_000;
    this.maxDelayMs = opts.maxDelayMs ?? 15_000;
    this.progressEveryMs = opts.progressEveryMs ?? 500;
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.holder = opts.holder ?? randomUUID();
  }

  /** Runs the job here unless it runs here already or another replica holds its lease. */
  start(id: string) {
    if (this.running.has(id) || this.closed) return;
    const abort = new AbortController();
    const done = this.leased(id, abort)
      .catch((err: unknown) => this.log.error({ err, syncJob: id }, 'sync job runner failed'))
      .finally(() => this.running.delete(id));
    this.running.set(id, { abort, done });
  }

  /**
   * Takes over the active jobs nobody runs and retries removing what ended jobs left on receivers that were
   * not reached (at start, then every leaseMs).
   */
  async resumeAll() {
    for (const { id } of await this.repo.activeIds()) this.start(id);
    if (!this.sweeper && !this.closed) {
      this.sweeper = setInterval(() => void this.resumeAll().catch((err: unknown) => this.log.warn({ err }, 'sync jobs not resumed')), this.leaseMs);
      this.sweeper.unref();
    }
    await this.discardLeftovers();
  }

  /**
   * Asks the receivers of ended jobs whose leftovers are due to remove them: each under the job's lease (one
   * replica per job), with a fresh grant that only allows the removal (role `discard`, ADR 0010 §7). Not
   * reached again → tried later, after as long again as the job has been over (at least leaseMs, at most
   * 10 min). The job's state, message and times stay as they ended.
   */
  async discardLeftovers() {
    // One sweep at a time in this process (the timer and a caller may overlap; the lease is per replica).
    this.discarding ??= this.sweepLeftovers().finally(() => (this.discarding = null));
    return this.discarding;
  }

  private async sweepLeftovers() {
    for (const row of await this.repo.dueDiscards(this.clock())) {
      if (this.closed) return;
      const name = `sync:${row.id}`;
      if (!(await this.leases.acquire(name, this.holder, this.clock(), this.leaseMs))) continue;
      try {
        const grant = randomBytes(32).toString('base64url');
        if (!(await this.repo.updateDiscard(row.id, { grant_hash: grantHash(grant) }))) continue;
        let removed = false;
        try {
          await this.receiverFor(row.target_center_id).discard(grant);
          removed = true;
        } catch (err) {
          this.log.warn({ err, syncJob: row.id }, 'sync leftovers not removed yet');
        }
        const now = this.clock();
        const age = now - Number(row.finish_time ?? now);
        await this.repo.updateDiscard(row.id, { grant_hash: '', discard_after: removed ? 0 : now + Math.min(Math.max(age, this.leaseMs), DISCARD_MAX_DELAY_MS) });
      } finally {
        await this.leases.release(name, this.holder).catch(() => {});
      }
    }
  }

  /**
   * Stops the job and discards what the target staged. A job running on another replica is asked to cancel
   * there (its holder sees the request within a third of leaseMs; this call waits while that holder lives, up
   * to CANCEL_WAIT_MS); one that nobody runs is cancelled here.
   */
  async cancel(id: string) {
    let r = this.running.get(id);
    if (!r) {
      await this.repo.updateActive(id, { cancel_requested: 1 });
      // Nobody else runs it: run it here, where it is cancelled before anything moves.
      this.start(id);
      r = this.running.get(id);
    }
    r?.abort.abort(CANCEL);
    await r?.done;
    // Another replica's holder takes the request in at its next renewal and then discards the staging, which
    // can take seconds on a loaded host: wait while it lives, take the job over here once its lease has run out
    // (start() only runs it if the lease is free, and then cancels at once), and answer whatever state the job
    // has after CANCEL_WAIT_MS — never hang. Wall-clock waiting (tests freeze the app's clock).
    const until = Date.now() + Math.max(CANCEL_WAIT_MS, this.leaseMs * 2);
    let tried = Date.now();
    while (Date.now() < until && !isFinal((await this.repo.byId(id))?.state ?? 'CANCELLED')) {
      if (Date.now() - tried >= this.leaseMs / 3) {
        tried = Date.now();
        this.start(id);
        await this.running.get(id)?.done;
      }
      await sleep(100);
    }
  }

  /** Stops every job without ending it and hands their leases over: another replica, or the next start, resumes them. */
  async close() {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    const all = [...this.running.values()];
    for (const r of all) r.abort.abort(CLOSING);
    await Promise.all(all.map((r) => r.done));
  }

  /**
   * Runs the job while holding its lease: renewed every third of leaseMs, when the job's row also tells
   * whether another replica asked for a cancel (then this runner cancels) or ended it (then it stops).
   */
  private async leased(id: string, abort: AbortController) {
    const name = `sync:${id}`;
    if (!(await this.leases.acquire(name, this.holder, this.clock(), this.leaseMs))) return;
    const keeper = setInterval(() => {
      void (async () => {
        const mine = await this.leases.acquire(name, this.holder, this.clock(), this.leaseMs);
        const row = await this.repo.byId(id);
        if (!mine || !row || isFinal(row.state)) abort.abort(LOST);
        else if (row.cancel_requested) abort.abort(CANCEL);
      })().catch((err: unknown) => this.log.warn({ err, syncJob: id }, 'sync lease not renewed'));
    }, this.leaseMs / 3);
    try {
      const row = await this.repo.byId(id);
      if (row?.cancel_requested) abort.abort(CANCEL);
      await this.run(id, abort.signal);
    } finally {
      clearInterval(keeper);
      await this.leases.release(name, this.holder).catch(() => {});
    }
  }

  /** Jobs running in this process (tests wait for them). */
  async idle() {
    while (this.running.size) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private async run(id: string, signal: AbortSignal) {
    let lastProgress = this.clock();
    for (;;) {
      const row = await this.repo.byId(id);
      if (!row || isFinal(row.state)) return;
      const grant = randomBytes(32).toString('base64url');
      const receiver = this.receiverFor(row.target_center_id);
      const first = row.state === 'QUEUED';
      if (!(await this.update(id, { grant_hash: grantHash(grant), state: 'RUNNING', message: first ? '正在连接目标分中心' : row.message }))) return;
      if (signal.reason === CANCEL) return this.cancelled(receiver, grant, id);
      let written = 0;
      // Progress writes in order, and all of them before the job ends.
      let writes = Promise.resolve();
      try {
        await receiver.pull(
          grant,
          (line) => {
            lastProgress = this.clock();
            if (line.type === 'progress' && this.clock() - written < this.progressEveryMs) return;
            written = this.clock();
            const set = { bytes_done: line.bytesDone, bytes_total: line.bytesTotal, files_done: line.filesDone, files_total: line.filesTotal, message: line.type === 'done' ? '正在完成' : '' };
            writes = writes.then(() => this.update(id, set)).then(
              () => {},
              (err: unknown) => this.log.warn({ err, syncJob: id }, 'sync progress not stored'),
            );
          },
          signal,
        );
        await writes;
        await this.finish(id, 'SUCCEEDED', '', await this.discard(receiver, grant, id));
        return;
      } catch (e) {
        await writes;
        if (signal.aborted) return signal.reason === CANCEL ? this.cancelled(receiver, grant, id) : undefined;
        // Our grant was replaced: another runner (a second gateway that resumed the job) has taken over.
        if (e instanceof AppError && e.code === ErrorCode.NOT_LOGGED_IN && (await this.repo.byId(id))?.grant_hash !== grantHash(grant)) return;
        const err = e instanceof AppError ? e : new AppError(ErrorCode.SYNC_FAILED);
        if (!(e instanceof AppError)) this.log.error({ err: e, syncJob: id }, 'sync attempt failed');
        if (!RETRYABLE.has(err.code) || this.clock() - lastProgress > this.retryWindowMs) {
          const removed = await this.discard(receiver, grant, id);
          await this.finish(id, 'FAILED', err.message.startsWith(errorMessage(ErrorCode.SYNC_FAILED)) ? err.message : `${errorMessage(ErrorCode.SYNC_FAILED)}：${err.message}`, removed);
          return;
        }
        const retries = row.retries + 1;
        const delay = Math.min(1000 * 2 ** Math.min(retries - 1, 4), this.maxDelayMs);
        await this.update(id, { retries, message: `连接中断（${err.message}），${Math.round(delay / 1000)} 秒后自动续传` });
        try {
          await sleep(delay, undefined, { signal });
        } catch {
          return signal.reason === CANCEL ? this.cancelled(receiver, grant, id) : undefined;
        }
      }
    }
  }

  private async cancelled(receiver: SyncReceiver, grant: string, id: string) {
    await this.finish(id, 'CANCELLED', '已取消', await this.discard(receiver, grant, id));
  }

  /** Whether the receiver removed what the job staged there; false (not reached) leaves it to discardLeftovers. */
  private async discard(receiver: SyncReceiver, grant: string, id: string): Promise<boolean> {
    return receiver.discard(grant).then(
      () => true,
      (err: unknown) => (this.log.warn({ err, syncJob: id }, 'sync discard failed; retried later'), false),
    );
  }

  private async update(id: string, set: Parameters<SyncRepository['updateActive']>[1]) {
    const ok = await this.repo.updateActive(id, { ...set, update_time: this.clock() });
    if (ok) await this.changed(id);
    return ok;
  }

  /** Ends the job; `removed` false records that the receiver still holds its leftovers (tried again after leaseMs). */
  private async finish(id: string, state: SyncState, message: string, removed: boolean) {
    const now = this.clock();
    if (!(await this.repo.updateActive(id, { state, message, grant_hash: '', update_time: now, finish_time: now, discard_after: removed ? 0 : now + this.leaseMs }))) return;
    const row = await this.repo.byId(id);
    if (!row) return;
    await this.events.changed(row);
    await this.events.finished(row);
  }

  private async changed(id: string) {
    const row = await this.repo.byId(id);
    if (row) await this.events.changed(row);
  }
}
