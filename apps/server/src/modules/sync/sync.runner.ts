import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, errorMessage, type SyncState } from '@suanli/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../errors';
import type { SyncReceiver } from '../../file-service/sync.service';
import type { SyncRepository, SyncRow } from './sync.repository';
import { grantHash, isFinal } from './sync.service';

/** "Not reached": the receiving or the source file service is down, restarting or unreachable. */
const RETRYABLE = new Set<number>([ErrorCode.INTERNAL_FAILED, ErrorCode.INTERNAL_TIMEOUT]);
const CANCEL = Symbol('cancel');
const CLOSING = Symbol('closing');

export interface SyncRunnerOptions {
  /** A job whose file services stay unreachable this long after its last progress fails (default 10 min). */
  retryWindowMs?: number;
  /** Longest wait between two attempts (default 15 s; the first retries come after 1, 2, 4, 8 s). */
  maxDelayMs?: number;
  /** Progress is written and pushed at most this often (default 500 ms). */
  progressEveryMs?: number;
}

/**
 * Runs the active sync jobs of this gateway (ADR 0010). Each attempt mints a fresh grant (only its hash is
 * stored) and asks the receiving file service to pull; the receiver resumes from what it staged, so an
 * attempt after any interruption — the receiver or the source killed, the network cut, this gateway
 * restarted — continues instead of starting over. Interruptions are retried with backoff for as long as
 * the job made progress within the retry window; refusals (no space, a name taken, a checksum that does not
 * match) fail the job at once. Jobs left active by a stopped gateway are resumed by `resumeAll` at start.
 */
export class SyncRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly retryWindowMs: number;
  private readonly maxDelayMs: number;
  private readonly progressEveryMs: number;

  constructor(
    private readonly repo: SyncRepository,
    private readonly receiverFor: (centerId: string) => SyncReceiver,
    private readonly clock: () => number,
    private readonly events: { changed(row: SyncRow): Promise<void>; finished(row: SyncRow): Promise<void> },
    private readonly log: FastifyBaseLogger,
    opts: SyncRunnerOptions = {},
  ) {
    this.retryWindowMs = opts.retryWindowMs ?? 10 * 60_000;
    this.maxDelayMs = opts.maxDelayMs ?? 15_000;
    this.progressEveryMs = opts.progressEveryMs ?? 500;
  }

  start(id: string) {
    if (this.running.has(id)) return;
    const abort = new AbortController();
    const done = this.run(id, abort.signal)
      .catch((err: unknown) => this.log.error({ err, syncJob: id }, 'sync job runner failed'))
      .finally(() => this.running.delete(id));
    this.running.set(id, { abort, done });
  }

  async resumeAll() {
    for (const { id } of await this.repo.activeIds()) this.start(id);
  }

  /** Stops the job and discards what the target staged; a job not running here is just marked cancelled. */
  async cancel(id: string) {
    const r = this.running.get(id);
    if (!r) {
      await this.finish(id, 'CANCELLED', '已取消');
      return;
    }
    r.abort.abort(CANCEL);
    await r.done;
  }

  /** Stops every job without ending it: the next start resumes them. */
  async close() {
    const all = [...this.running.values()];
    for (const r of all) r.abort.abort(CLOSING);
    await Promise.all(all.map((r) => r.done));
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
      const first = row.state === 'QUEUED';
      if (!(await this.update(id, { grant_hash: grantHash(grant), state: 'RUNNING', message: first ? '正在连接目标分中心' : row.message }))) return;
      const receiver = this.receiverFor(row.target_center_id);
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
        await this.discard(receiver, grant, id);
        await this.finish(id, 'SUCCEEDED', '');
        return;
      } catch (e) {
        await writes;
        if (signal.aborted) {
          if (signal.reason === CANCEL) {
            await this.discard(receiver, grant, id);
            await this.finish(id, 'CANCELLED', '已取消');
          }
          return;
        }
        // Our grant was replaced: another runner (a second gateway that resumed the job) has taken over.
        if (e instanceof AppError && e.code === ErrorCode.NOT_LOGGED_IN && (await this.repo.byId(id))?.grant_hash !== grantHash(grant)) return;
        const err = e instanceof AppError ? e : new AppError(ErrorCode.SYNC_FAILED);
        if (!(e instanceof AppError)) this.log.error({ err: e, syncJob: id }, 'sync attempt failed');
        if (!RETRYABLE.has(err.code) || this.clock() - lastProgress > this.retryWindowMs) {
          await this.discard(receiver, grant, id);
          await this.finish(id, 'FAILED', err.message.startsWith(errorMessage(ErrorCode.SYNC_FAILED)) ? err.message : `${errorMessage(ErrorCode.SYNC_FAILED)}：${err.message}`);
          return;
        }
        const retries = row.retries + 1;
        const delay = Math.min(1000 * 2 ** Math.min(retries - 1, 4), this.maxDelayMs);
        await this.update(id, { retries, message: `连接中断（${err.message}），${Math.round(delay / 1000)} 秒后自动续传` });
        try {
          await sleep(delay, undefined, { signal });
        } catch {
          if (signal.reason === CANCEL) {
            await this.discard(receiver, grant, id);
            await this.finish(id, 'CANCELLED', '已取消');
          }
          return;
        }
      }
    }
  }

  /** Best effort: a receiver that cannot be reached keeps its staging until its own cleanup (24 h). */
  private async discard(receiver: SyncReceiver, grant: string, id: string) {
    await receiver.discard(grant).catch((err: unknown) => this.log.warn({ err, syncJob: id }, 'sync discard failed'));
  }

  private async update(id: string, set: Parameters<SyncRepository['updateActive']>[1]) {
    const ok = await this.repo.updateActive(id, { ...set, update_time: this.clock() });
    if (ok) await this.changed(id);
    return ok;
  }

  private async finish(id: string, state: SyncState, message: string) {
    const now = this.clock();
    if (!(await this.repo.updateActive(id, { state, message, grant_hash: '', update_time: now, finish_time: now }))) return;
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
