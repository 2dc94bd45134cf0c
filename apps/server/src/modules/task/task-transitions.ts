import { DICTS, isTerminal, NOTIFIED_STATES, WS_TASK_STATE_CHANGED, type JobState, type TaskKind } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import type { InTx } from '../../db/db';
import { notFound } from '../../errors';
import { JobRefused, type Executor, type JobStatus } from '../../executors/executor';
import type { EventBus } from '../../realtime/bus';
import type { JobSpecs } from './job-spec';
import { isMeteringStop, TEAM_STOP_PREFIX } from './task-compute';
import type { TaskFiles } from './task-files';
import { isOperatorStop } from './reasons';
import { nextState } from './task-state';
import type { TaskRepository, TaskRow } from './task.repository';

/** Chinese state names for messages: the `job_states` dictionary the console shows. */
const STATE_LABEL = Object.fromEntries(DICTS.job_states.map((d) => [d.dictValue, d.dictLabel])) as Record<JobState, string>;

export interface TaskTransitionOptions {
  /** A submit that failed for a transient reason is retried by the poller after this long. */
  submitRetryMs?: number;
  /** A develop task's owner is warned this long before its 最长运行时长 ends. Default 10 min. */
  expiryWarnMs?: number;
}

/**
 * How a task moves — the lower half of the state engine (task.service.ts is what is asked of it): one poll
 * of a center applies what its scheduler reports through the pure rules of task-state.ts, retries submits
 * and stops that did not arrive, and warns before a develop environment's end; `move` stores a change only
 * if the task is still where the caller saw it (replicas and requests race), with its event, a
 * `task.state.changed` socket event and — for the states users care about — a `task` message.
 */
export class TaskTransitions {
  private readonly submitRetryMs: number;
  private readonly expiryWarnMs: number;
  /** Tasks whose retry is under way (one at a time per task). */
  private readonly settling = new Set<string>();

  constructor(
    private readonly repo: TaskRepository,
    private readonly executors: ReadonlyMap<string, Executor>,
    private readonly centers: ReadonlyMap<string, CenterConfig>,
    private readonly jobs: JobSpecs,
    private readonly files: Pick<TaskFiles, 'exitCode'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    private readonly log: { warn: (o: object, msg: string) => void },
    opts: TaskTransitionOptions = {},
  ) {
    this.submitRetryMs = opts.submitRetryMs ?? 10_000;
    this.expiryWarnMs = opts.expiryWarnMs ?? 10 * 60_000;
  }

  executor(subCenterId: string): Executor {
    const e = this.executors.get(subCenterId);
    if (!e) throw notFound('算力分中心');
    return e;
  }

  /**
   * One poll of a center (the poller's body): submits tasks a dead gateway left CREATED, retries pending
   * submits, then asks about every active job. Answers whether the center has any task not ended (else its
   * poller may idle) and its tasks waiting for data (the asset module's, after the poll), read in the same query.
   */
  async poll(subCenterId: string): Promise<{ watching: boolean; waiting: TaskRow[] }> {
    const executor = this.executor(subCenterId);
    const now = this.clock();
    const withJob: TaskRow[] = [];
    const waiting: TaskRow[] = [];
    const rows = await this.repo.unended(subCenterId);
    for (const row of rows) {
      if (row.state === 'CREATED') {
        if (Number(row.waiting_data)) waiting.push(row);
        // Stored, then the gateway died before it moved them on (create submits at once). Off the poll loop,
        // one at a time per task; across replicas the conditional move CREATED → SUBMITTING lets one submit.
        else if (Number(row.update_time) <= now - this.submitRetryMs && !this.settling.has(row.id)) {
          this.settling.add(row.id);
          void this.submitStranded(row)
            .catch((err: unknown) => this.log.warn({ err, taskId: row.id }, 'submitting a stranded task failed'))
            .finally(() => this.settling.delete(row.id));
        }
      } else if (row.job_id) withJob.push(row);
      // Off the poll loop: a retry may take a while (the executor looks for an earlier attempt's job twice).
      else if (Number(row.update_time) + this.submitRetryMs <= now && !this.settling.has(row.id)) {
        this.settling.add(row.id);
        void this.settleUnsubmitted(row)
          .catch((err: unknown) => this.log.warn({ err, taskId: row.id }, 'settling an unsubmitted task failed'))
          .finally(() => this.settling.delete(row.id));
      }
    }
    if (!withJob.length) return { watching: rows.length > 0, waiting };
    const statuses = await executor.states(withJob.map((r) => this.jobs.refOf(r)));
    for (const row of withJob) {
      const status = statuses.get(row.job_id!);
      await this.apply(row, status);
      // A stop the scheduler has not acted on yet (or that failed to arrive): ask again.
      if (row.state === 'STOPPING' && status && !['SUCCEEDED', 'FAILED', 'STOPPED'].includes(status.phase)) {
        await this.cancel(row).catch((err: unknown) => this.log.warn({ err, taskId: row.id }, 'cancel retry failed'));
      }
      if (status?.phase === 'RUNNING') await this.warnExpiry(row, now);
    }
    return { watching: true, waiting };
  }

  /**
   * A develop environment is stopped at its 最长运行时长: its owner gets one message (and so a socket event)
   * `expiryWarnMs` before, to save their work.
   */
  private async warnExpiry(row: TaskRow, now: number) {
    if (row.type !== 'develop' || Number(row.expiry_warned) || row.start_time === null || !row.max_duration_min) return;
    const end = Number(row.start_time) + row.max_duration_min * 60_000;
    if (now < end - this.expiryWarnMs || now >= end) return;
    if (!(await this.repo.markExpiryWarned(row.id))) return;
    const minutes = Math.max(1, Math.round((end - now) / 60_000));
    await this.notify(row.owner_id, {
      type: 'task',
      title: `开发环境「${row.name}」将在约 ${minutes} 分钟后到达最长运行时长`,
      content: `开发环境「${row.name}」将于 ${new Date(end + 8 * 3600_000).toISOString().slice(11, 16)}（北京时间）到达最长运行时长并被停止，请及时保存工作。`,
      businessType: row.kind,
      businessId: row.id,
    });
  }

  /** A task without a job: SUBMITTING (a first attempt timed out or the gateway died) or STOPPING before one. */
  private async settleUnsubmitted(row: TaskRow) {
    if (row.state === 'STOPPING') {
      const jobId = await this.executor(row.sub_center_id).find(row.id, this.jobs.accountOf(row));
      if (jobId) {
        await this.repo.touch(row.id, 'STOPPING', { job_id: jobId });
        await this.cancel({ ...row, job_id: jobId });
      } else await this.move(row, { state: 'STOPPED', reason: isOperatorStop(row.reason) ? row.reason : '用户停止', end_time: this.clock() });
      return;
    }
    if (row.state === 'SUBMITTING') await this.submitAttempt(row);
  }

  /** A task left CREATED by a gateway that died before submitting it: submitted now, the timeline says why. */
  private async submitStranded(row: TaskRow) {
    if (!(await this.move(row, { state: 'SUBMITTING', reason: '网关在提交前中断，已自动继续提交' }))) return;
    await this.submitAttempt({ ...row, state: 'SUBMITTING' });
  }

  /**
   * One attempt. Its number is stored before the scheduler is asked, so a retry (after a timeout or a gateway
   * restart) knows an earlier attempt may have made a job, and the executor looks for it first instead of
   * making a second; only a first attempt may skip that lookup.
   */
  async submitAttempt(row: TaskRow) {
    const attempt = row.submit_attempts + 1;
    await this.repo.touch(row.id, 'SUBMITTING', { submit_attempts: attempt, update_time: this.clock() });
    try {
      const { jobId } = await this.executor(row.sub_center_id).submit(this.jobs.specOf(row), attempt);
      await this.move({ ...row, submit_attempts: attempt }, { state: 'QUEUED', reason: '', job_id: jobId });
    } catch (err) {
      if (err instanceof JobRefused) {
        await this.move(row, { state: 'SUBMIT_FAILED', reason: `调度系统拒绝：${err.reason}`, end_time: this.clock() });
        return;
      }
      this.log.warn({ err, taskId: row.id, attempt }, 'submit failed; retrying later');
      await this.repo.touch(row.id, 'SUBMITTING', { update_time: this.clock(), reason: '调度系统暂时无法连接，稍后自动重试' });
    }
  }

  private async apply(row: TaskRow, status: JobStatus | undefined) {
    // A stop metering asked for (TaskService.stopUnderpowered) ends UNDERPOWERED, not STOPPED.
    const t = nextState(row.state as JobState, status, row.state === 'STOPPING' && isMeteringStop(row.reason) ? 'underpowered' : 'user');
    if (!status) return;
    // Where the running job is reached, as the scheduler says (the IDE proxy's only target).
    if (status.phase === 'RUNNING' && status.host && status.host !== row.exec_host && (!t || t.state === row.state)) {
      await this.repo.touch(row.id, row.state as JobState, { exec_host: status.host });
    }
    if (!t || t.state === row.state) {
      // Same state: keep the pending reason and the estimated start current without an event.
      const reason = t?.reason ?? row.reason;
      const est = status.estimatedStart ?? null;
      if (row.state === 'QUEUED' && (reason !== row.reason || est !== (row.estimated_start === null ? null : Number(row.estimated_start)))) {
        await this.repo.touch(row.id, 'QUEUED', { reason, estimated_start: est });
      }
      return;
    }
    const now = this.clock();
    const ended = isTerminal(t.state);
    // Settled without an exit code (from accounting, whose dbv0.0.38 exit codes are wrong for failures): the
    // job's own record of it, if its wrapper got to write one.
    let exitCode = status.exitCode ?? row.exit_code;
    // A team-paid task stopped at the member's limit (or after they left) keeps the reason naming it; so does
    // one an operator stopped (their reason, not 用户停止: the owner did not ask for it).
    const kept = (t.state === 'UNDERPOWERED' && row.reason.startsWith(TEAM_STOP_PREFIX)) || (t.state === 'STOPPED' && row.state === 'STOPPING' && isOperatorStop(row.reason));
    let reason = kept ? row.reason : t.reason;
    if (ended && exitCode == null) {
      exitCode = await this.files.exitCode(row);
      if (exitCode != null && t.state === 'FAILED' && status.reason === 'NonZeroExitCode') reason = `退出码 ${exitCode}`;
    }
    await this.move(row, {
      state: t.state,
      reason,
      estimated_start: t.state === 'QUEUED' ? (status.estimatedStart ?? null) : null,
      start_time: row.start_time ?? (t.state === 'RUNNING' ? (status.startTime ?? now) : ended ? (status.startTime ?? null) : null),
      end_time: ended ? (status.endTime ?? now) : null,
      exit_code: exitCode,
      // The evidence of issue 23's diagnosis and efficiency report: the scheduler's own words and figures.
      ...(ended ? { reason_code: row.state === 'STOPPING' ? null : (status.reason ?? null), exit_signal: status.signal ?? null, job_usage: status.usage ? JSON.stringify(status.usage) : null } : {}),
      exec_host: status.phase === 'RUNNING' ? (status.host ?? row.exec_host) : row.exec_host,
    });
  }

  /**
   * Stores a state change (if the task is still where `row` says), then tells the owner. `alsoIn` runs in the
   * change's transaction, only when it changed the task (an operator's stop: its audit entry).
   */
  async move(row: TaskRow, patch: Partial<TaskRow> & { state: JobState; reason: string }, alsoIn?: InTx): Promise<boolean> {
    const now = this.clock();
    const moved = await this.repo.transition(row.id, row.state as JobState, { ...patch, update_time: now }, patch.reason, alsoIn);
    if (!moved) return false;
    if (patch.state !== row.state) await this.announce({ ...row, ...patch }, patch.state, patch.reason);
    return true;
  }

  private async announce(row: TaskRow, state: JobState, reason: string) {
    await this.bus.publish(row.owner_id, { businessType: WS_TASK_STATE_CHANGED, data: { taskId: row.id, kind: row.kind as TaskKind, state, reason } });
    if (!NOTIFIED_STATES.includes(state)) return;
    // Named as the menu names them (科学计算 › 任务管理): users need not know the scheduler.
    const family = row.kind === 'training' ? '训练任务' : '科学计算任务';
    await this.notify(row.owner_id, {
      type: 'task',
      title: `${family}「${row.name}」${STATE_LABEL[state]}`,
      content: `${family}「${row.name}」在${this.centers.get(row.sub_center_id)?.name ?? row.sub_center_id}${STATE_LABEL[state]}${reason ? `：${reason}` : ''}。`,
      businessType: row.kind,
      businessId: row.id,
    });
  }

  async cancel(row: TaskRow) {
    if (!row.job_id) return;
    await this.executor(row.sub_center_id).cancel(this.jobs.refOf(row));
  }
}
