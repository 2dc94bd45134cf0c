import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  CLIENT_REQUEST_TTL_MS,
  DICTS,
  ErrorCode,
  isTerminal,
  METRICS_MAX_POINTS,
  NOTIFIED_STATES,
  WS_TASK_STATE_CHANGED,
  type EnvVar,
  type JobState,
  type MetricPoint,
  type Page,
  type Task,
  type TaskDetail,
  type TaskKind,
  type TaskLog,
  type TaskLogQuery,
  type TaskMetrics,
  type TaskMount,
  type TaskPageQuery,
  type TaskSsh,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import { AppError, invalid, notFound } from '../../errors';
import { JobRefused, platformEnv, type Executor, type JobRef, type JobSpec, type JobStatus } from '../../executors/executor';
import { jobHomeOf, parseUserPath, type CenterStorages } from '../../center-storage/center-storage';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { Principal } from '../access/principal';
import { uidOfAccount, type ClusterAccountService } from '../cluster-account/cluster-account.service';
import { nextState } from './task-state';
import type { TaskRepository, TaskRow } from './task.repository';

/** A task as a family module (training, slurm) hands it over: already validated against its own form. */
export interface NewTask {
  kind: TaskKind;
  type: string;
  name: string;
  subCenterId: string;
  placementReason: string;
  cardTypeId: string;
  cardNum: number;
  nodeNum: number;
  imageId: string;
  /** Start command (training) or the rendered sbatch script (slurm). */
  command: string;
  workDir: string;
  env: EnvVar[];
  maxDurationMinutes: number;
  templateId?: string | null;
  params?: Record<string, string | number> | null;
  /** Dataset/model versions mounted read-only, resolved by the asset module (training tasks). */
  mounts?: TaskMount[];
  /**
   * Why the task cannot be submitted yet: a mounted version is being synced to its center (ADR 0010 §8). It
   * then waits in CREATED with this reason until the asset module releases it (or fails it).
   */
  waitingFor?: string;
  /** The console's id of this submission: the same id again (within a day) answers the first task. */
  clientRequestId?: string;
}

/**
 * The rules every task form shares, checked before anything else of the family's (1005 naming the field):
 * environment variables are unique and never the platform's own `SUANLI_*`.
 */
export function checkTaskInput(t: { env: EnvVar[] }): void {
  const names = new Set<string>();
  for (const v of t.env) {
    if (names.has(v.name)) throw invalid('env', `环境变量 ${v.name} 重复`);
    if (v.name.startsWith('SUANLI_')) throw invalid('env', `环境变量 ${v.name} 由平台设置，不能自定义`);
    names.add(v.name);
  }
}

/** Image lookup for names and the launcher URI (the training module's catalogue). */
export type ImageLookup = (id: string) => { name: string; uri: string } | undefined;

/** Chinese state names for messages: the `job_states` dictionary the console shows. */
const STATE_LABEL = Object.fromEntries(DICTS.job_states.map((d) => [d.dictValue, d.dictLabel])) as Record<JobState, string>;

export interface TaskServiceOptions {
  /** A submit that failed for a transient reason is retried by the poller after this long. */
  submitRetryMs?: number;
  /** Upper bound of one log read (the contract's limit also caps it). */
  metricsReadBytes?: number;
  /** A develop task's owner is warned this long before its 最长运行时长 ends. Default 10 min. */
  expiryWarnMs?: number;
}

/**
 * The one state engine both task families share (design/domain.md, job_states): it stores a task, submits it
 * to its center's executor (idempotently: retries find the first job by the task id), applies what the
 * scheduler reports — every change stored with its time and reason, a `task` message for the states users care
 * about and a `task.state.changed` socket event — and reads a task's log and metrics from the owner's home.
 * Every user-facing method takes the caller first and answers 1205 for anything not theirs.
 */
export class TaskService {
  private readonly centerMap: Map<string, CenterConfig>;
  private readonly submitRetryMs: number;
  private readonly expiryWarnMs: number;
  private readonly metricsReadBytes: number;
  /** Tasks whose retry is under way (one at a time per task). */
  private readonly settling = new Set<string>();

  constructor(
    private readonly repo: TaskRepository,
    private readonly executors: ReadonlyMap<string, Executor>,
    centers: CenterConfig[],
    private readonly clusterAccounts: ClusterAccountService,
    /** Each center's storage: logs, metrics and work dirs are read there (this host or the file service, ADR 0016). */
    private readonly storage: CenterStorages,
    private readonly images: ImageLookup,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    private readonly log: { warn: (o: object, msg: string) => void },
    opts: TaskServiceOptions = {},
  ) {
    this.centerMap = new Map(centers.map((c) => [c.id, c]));
    this.submitRetryMs = opts.submitRetryMs ?? 10_000;
    this.expiryWarnMs = opts.expiryWarnMs ?? 10 * 60_000;
    this.metricsReadBytes = opts.metricsReadBytes ?? 4 * 1024 * 1024;
  }

  executor(subCenterId: string): Executor {
    const e = this.executors.get(subCenterId);
    if (!e) throw notFound('算力分中心');
    return e;
  }

  /** Every configured center, in config order. */
  centers(): CenterConfig[] {
    return [...this.centerMap.values()];
  }

  cardTypeName(cardTypeId: string): string {
    for (const c of this.centerMap.values()) {
      const t = c.cardTypes.find((x) => x.id === cardTypeId);
      if (t) return t.name;
    }
    return cardTypeId;
  }

  center(subCenterId: string): CenterConfig {
    const c = this.centerMap.get(subCenterId);
    if (!c) throw notFound('算力分中心');
    return c;
  }

  /** Tasks waiting per card type on a center (placement's "shortest queue"). */
  queued(subCenterId: string): Promise<Map<string, number>> {
    return this.repo.queuedByCardType(subCenterId);
  }

  /** Whether the user already has `workDir` on the center (without creating an account there). */
  async holdsDir(userId: string, subCenterId: string, workDir: string): Promise<boolean> {
    const [account] = await this.clusterAccounts.list(userId, subCenterId);
    if (!account) return false;
    try {
      await this.requireDir(subCenterId, account.account, parseUserPath(workDir), 'workDir');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The absolute path of the caller's home on the center as their jobs see it (JobSpec.account.home), the
   * account made on first use: what Slurm templates put in front of a path parameter.
   */
  async jobHome(p: Principal, subCenterId: string): Promise<string> {
    const account = await this.clusterAccounts.ensure(p.userId, this.center(subCenterId).id);
    return this.homeOf({ sub_center_id: subCenterId, account: account.account });
  }

  // ---- user calls -------------------------------------------------------------------------------------

  /** Stores the task and submits it. The answer is the task after the first submit attempt. */
  async create(p: Principal, t: NewTask): Promise<Task> {
    return (await this.createOnce(p, t)).task;
  }

  /**
   * `create`, saying whether this call made the task. With `clientRequestId`, a submission the caller
   * already made within CLIENT_REQUEST_TTL_MS answers its first task (`created: false`) — also when two
   * identical requests race: the unique index on (owner, id) lets one insert, the other answers its task.
   * An older task gives its id up, and the id names the new one.
   */
  async createOnce(p: Principal, t: NewTask): Promise<{ task: Task; created: boolean }> {
    if (t.clientRequestId) {
      const first = await this.submitted(p, t.kind, t.clientRequestId);
      if (first) return { task: first, created: false };
    }
    const center = this.center(t.subCenterId);
    if (center.status !== 'online') throw new AppError(ErrorCode.CENTER_UNAVAILABLE);
    const cardType = center.cardTypes.find((c) => c.id === t.cardTypeId);
    if (!cardType) throw new AppError(ErrorCode.CARD_TYPE_NOT_OFFERED);
    if (t.cardNum > cardType.cardsPerNode) throw new AppError(ErrorCode.CARDS_EXCEED_NODE, `每节点卡数超出上限：${cardType.name} 每节点最多 ${cardType.cardsPerNode} 张`);
    if (t.nodeNum > cardType.nodes) throw new AppError(ErrorCode.NODES_EXCEED_CENTER, `节点数超出上限：${cardType.name} 共 ${cardType.nodes} 个节点`);
    const account = await this.clusterAccounts.ensure(p.userId, center.id);
    const workSegs = parseUserPath(t.workDir);
    await this.requireDir(center.id, account.account, workSegs, 'workDir');
    const now = this.clock();
    const id = newId(now);
    const workDir = `/${workSegs.join('/')}`;
    const row: TaskRow = {
      id,
      owner_id: p.userId,
      kind: t.kind,
      type: t.type,
      name: t.name.trim(),
      sub_center_id: center.id,
      placement_reason: t.placementReason,
      account: account.account,
      card_type_id: cardType.id,
      card_num: t.cardNum,
      node_num: t.nodeNum,
      image_id: t.imageId,
      command: t.command,
      work_dir: workDir,
      env: JSON.stringify(t.env),
      max_duration_min: t.maxDurationMinutes,
      template_id: t.templateId ?? null,
      params: t.params ? JSON.stringify(t.params) : null,
      mounts: JSON.stringify(t.mounts ?? []),
      state: 'CREATED',
      reason: t.waitingFor ?? '',
      estimated_start: null,
      job_id: null,
      exit_code: null,
      log_path: path.posix.join(workDir, `suanli-${id}.log`),
      submit_attempts: 0,
      create_time: now,
      update_time: now,
      start_time: null,
      end_time: null,
      expiry_warned: 0,
      waiting_data: t.waitingFor ? 1 : 0,
      exec_host: null,
      client_request_id: t.clientRequestId ?? null,
    };
    if (t.clientRequestId) await this.repo.releaseClientRequest(p.userId, t.clientRequestId, now - CLIENT_REQUEST_TTL_MS);
    if (!(await this.repo.insert(row))) {
      // A request with the same id inserted first (both looked before either stored): its task is the answer.
      const first = await this.submitted(p, t.kind, t.clientRequestId!);
      if (first) return { task: first, created: false };
      throw invalid('clientRequestId', '提交编号冲突，请重新提交');
    }
    if (!t.waitingFor) await this.submit(row);
    return { task: this.toTask((await this.repo.get(id))!), created: true };
  }

  /**
   * The caller's task made by the submission `clientRequestId` within CLIENT_REQUEST_TTL_MS, if any: what a
   * retried submission answers. An id of the caller's other task family is refused (1005).
   */
  async submitted(p: Principal, kind: TaskKind, clientRequestId: string): Promise<Task | undefined> {
    const row = await this.repo.findByClientRequest(p.userId, clientRequestId);
    if (!row || Number(row.create_time) <= this.clock() - CLIENT_REQUEST_TTL_MS) return undefined;
    if (row.kind !== kind) throw invalid('clientRequestId', '该提交编号已用于另一类任务，请重新提交');
    return this.toTask(row);
  }

  /** Tasks on a center waiting (CREATED) for the versions they mount to be synced there. */
  async waitingForData(centerId: string): Promise<{ row: TaskRow; mounts: TaskMount[] }[]> {
    return (await this.repo.waitingForData(centerId)).map((row) => ({ row, mounts: mountsOf(row) }));
  }

  /** The data a waiting task mounts is on its center: submit it (once, whoever calls first). */
  async releaseWaiting(row: TaskRow) {
    if (!(await this.move(row, { state: 'SUBMITTING', reason: '', waiting_data: 0 }))) return;
    await this.submitAttempt({ ...row, state: 'SUBMITTING', waiting_data: 0 });
  }

  /** A waiting task whose data could not be synced ends FAILED with the reason. */
  async failWaiting(row: TaskRow, reason: string) {
    await this.move(row, { state: 'FAILED', reason, waiting_data: 0, end_time: this.clock() });
  }

  async page(p: Principal, kind: TaskKind, q: TaskPageQuery): Promise<Page<Task>> {
    const { rows, total } = await this.repo.page(p.userId, kind, q, (q.pageNum - 1) * q.pageSize, q.pageSize);
    return { list: rows.map((r) => this.toTask(r)), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, kind: TaskKind, id: string): Promise<TaskDetail> {
    const row = await this.owned(p, kind, id);
    const events = await this.repo.events(id);
    return { ...this.toTask(row), events: events.map((e) => ({ state: e.state as JobState, reason: e.reason, time: Number(e.time) })) };
  }

  /** The parameters of one of the caller's tasks, for copy-and-resubmit and save-as-template. */
  async parameters(p: Principal, kind: TaskKind, id: string): Promise<NewTask> {
    const r = await this.owned(p, kind, id);
    return {
      kind,
      type: r.type,
      name: r.name,
      subCenterId: r.sub_center_id,
      placementReason: r.placement_reason,
      cardTypeId: r.card_type_id,
      cardNum: r.card_num,
      nodeNum: r.node_num,
      imageId: r.image_id,
      command: r.command,
      workDir: r.work_dir,
      env: JSON.parse(r.env) as EnvVar[],
      maxDurationMinutes: r.max_duration_min,
      templateId: r.template_id,
      params: r.params ? (JSON.parse(r.params) as Record<string, string | number>) : null,
      mounts: mountsOf(r),
    };
  }

  /** Whether an unfinished task (of anyone) mounts this asset, or this version of it: then it cannot go. */
  mountsInUse(assetId: string, versionId?: string): Promise<boolean> {
    return this.repo.unfinishedMounting(versionId ?? assetId);
  }

  /** Asks the scheduler to end the job; the task shows 停止中 until the scheduler confirms. */
  async stop(p: Principal, kind: TaskKind, id: string): Promise<Task> {
    const row = await this.owned(p, kind, id);
    const state = row.state as JobState;
    if (isTerminal(state)) throw new AppError(ErrorCode.TASK_NOT_STOPPABLE);
    if (state !== 'STOPPING') {
      const moved = await this.move(row, { state: 'STOPPING', reason: '用户请求停止' });
      if (!moved) return this.stop(p, kind, id);
    }
    const now = (await this.repo.get(id))!;
    await this.cancel(now).catch((err: unknown) => this.log.warn({ err, taskId: id }, 'cancel failed; the poller retries'));
    return this.toTask((await this.repo.get(id))!);
  }

  async remove(p: Principal, kind: TaskKind, id: string): Promise<null> {
    const row = await this.owned(p, kind, id);
    if (!isTerminal(row.state as JobState)) throw new AppError(ErrorCode.TASK_NOT_DELETABLE);
    await this.repo.remove(p.userId, id);
    return null;
  }

  async readLog(p: Principal, kind: TaskKind, id: string, q: TaskLogQuery): Promise<TaskLog> {
    const row = await this.owned(p, kind, id);
    const { bytes, size } = await this.readFile(row, row.log_path, q.offset, q.limit);
    // Cut at the last complete UTF-8 character; the rest comes with the next read.
    const end = completeUtf8(bytes);
    const nextOffset = q.offset + end;
    return {
      content: bytes.subarray(0, end).toString('utf8'),
      offset: q.offset,
      nextOffset,
      size,
      eof: isTerminal(row.state as JobState) && nextOffset >= size,
    };
  }

  /** The whole log as a stream, for download. */
  async openLog(p: Principal, kind: TaskKind, id: string): Promise<{ stream: Readable; size: number; name: string }> {
    const row = await this.owned(p, kind, id);
    const opened = await this.storage.of(row.sub_center_id).openFile(row.account, row.log_path);
    if (!opened) throw new AppError(ErrorCode.FILE_NOT_FOUND, '日志文件不存在（任务尚未开始输出）');
    return { stream: opened.stream, size: opened.size, name: path.posix.basename(row.log_path) };
  }

  /** Training curves: complete JSON lines of numbers after `offset`, at most METRICS_MAX_POINTS per answer. */
  async readMetrics(p: Principal, kind: TaskKind, id: string, offset: number): Promise<TaskMetrics> {
    const row = await this.owned(p, kind, id);
    const { bytes } = await this.readFile(row, metricsPath(row), offset, this.metricsReadBytes);
    const points: MetricPoint[] = [];
    let consumed = 0;
    let truncated = false;
    for (;;) {
      const nl = bytes.indexOf(10, consumed);
      if (nl < 0) break;
      if (points.length >= METRICS_MAX_POINTS) {
        truncated = true;
        break;
      }
      const point = parseMetricLine(bytes.subarray(consumed, nl).toString('utf8'));
      if (point) points.push(point);
      consumed = nl + 1;
    }
    return { points, nextOffset: offset + consumed, truncated };
  }

  // ---- the engine -------------------------------------------------------------------------------------

  /**
   * One poll of a center (the poller's body): submits tasks a dead gateway left CREATED, retries pending
   * submits, then asks about every active job.
   */
  async poll(subCenterId: string): Promise<void> {
    const executor = this.executor(subCenterId);
    const now = this.clock();
    // Stored, then the gateway died before it moved them on (create submits at once; a task waiting for data
    // is the asset module's). Off the poll loop, one at a time per task; across replicas the conditional move
    // CREATED → SUBMITTING lets one submit.
    for (const row of await this.repo.stranded(subCenterId, now - this.submitRetryMs)) {
      if (this.settling.has(row.id)) continue;
      this.settling.add(row.id);
      void this.submitStranded(row)
        .catch((err: unknown) => this.log.warn({ err, taskId: row.id }, 'submitting a stranded task failed'))
        .finally(() => this.settling.delete(row.id));
    }
    const rows = await this.repo.active(subCenterId);
    const withJob: TaskRow[] = [];
    for (const row of rows) {
      if (row.job_id) withJob.push(row);
      // Off the poll loop: a retry may take a while (the executor looks for an earlier attempt's job twice).
      else if (Number(row.update_time) + this.submitRetryMs <= now && !this.settling.has(row.id)) {
        this.settling.add(row.id);
        void this.settleUnsubmitted(row)
          .catch((err: unknown) => this.log.warn({ err, taskId: row.id }, 'settling an unsubmitted task failed'))
          .finally(() => this.settling.delete(row.id));
      }
    }
    if (!withJob.length) return;
    const statuses = await executor.states(withJob.map((r) => this.refOf(r)));
    for (const row of withJob) {
      const status = statuses.get(row.job_id!);
      await this.apply(row, status);
      // A stop the scheduler has not acted on yet (or that failed to arrive): ask again.
      if (row.state === 'STOPPING' && status && !['SUCCEEDED', 'FAILED', 'STOPPED'].includes(status.phase)) {
        await this.cancel(row).catch((err: unknown) => this.log.warn({ err, taskId: row.id }, 'cancel retry failed'));
      }
      if (status?.phase === 'RUNNING') await this.warnExpiry(row, now);
    }
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
      const jobId = await this.executor(row.sub_center_id).find(row.id, this.accountOf(row));
      if (jobId) {
        await this.repo.touch(row.id, 'STOPPING', { job_id: jobId });
        await this.cancel({ ...row, job_id: jobId });
      } else await this.move(row, { state: 'STOPPED', reason: '用户停止', end_time: this.clock() });
      return;
    }
    if (row.state === 'SUBMITTING') await this.submitAttempt(row);
  }

  /** A task left CREATED by a gateway that died before submitting it: submitted now, the timeline says why. */
  private async submitStranded(row: TaskRow) {
    if (!(await this.move(row, { state: 'SUBMITTING', reason: '网关在提交前中断，已自动继续提交' }))) return;
    await this.submitAttempt({ ...row, state: 'SUBMITTING' });
  }

  private async submit(row: TaskRow) {
    if (!(await this.move(row, { state: 'SUBMITTING', reason: '' }))) return;
    await this.submitAttempt({ ...row, state: 'SUBMITTING' });
  }

  /**
   * One attempt. Its number is stored before the scheduler is asked, so a retry (after a timeout or a gateway
   * restart) knows an earlier attempt may have made a job, and the executor looks for it first instead of
   * making a second; only a first attempt may skip that lookup.
   */
  private async submitAttempt(row: TaskRow) {
    const attempt = row.submit_attempts + 1;
    await this.repo.touch(row.id, 'SUBMITTING', { submit_attempts: attempt, update_time: this.clock() });
    try {
      const { jobId } = await this.executor(row.sub_center_id).submit(this.specOf(row), attempt);
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
    const t = nextState(row.state as JobState, status);
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
    let reason = t.reason;
    if (ended && exitCode == null) {
      exitCode = await this.readExitFile(row);
      if (exitCode != null && t.state === 'FAILED' && status.reason === 'NonZeroExitCode') reason = `退出码 ${exitCode}`;
    }
    await this.move(row, {
      state: t.state,
      reason,
      estimated_start: t.state === 'QUEUED' ? (status.estimatedStart ?? null) : null,
      start_time: row.start_time ?? (t.state === 'RUNNING' ? (status.startTime ?? now) : ended ? (status.startTime ?? null) : null),
      end_time: ended ? (status.endTime ?? now) : null,
      exit_code: exitCode,
      exec_host: status.phase === 'RUNNING' ? (status.host ?? row.exec_host) : row.exec_host,
    });
  }

  /** Stores a state change (if the task is still where `row` says), then tells the owner. */
  private async move(row: TaskRow, patch: Partial<TaskRow> & { state: JobState; reason: string }): Promise<boolean> {
    const now = this.clock();
    const moved = await this.repo.transition(row.id, row.state as JobState, { ...patch, update_time: now }, patch.reason);
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
      content: `${family}「${row.name}」在${this.centerMap.get(row.sub_center_id)?.name ?? row.sub_center_id}${STATE_LABEL[state]}${reason ? `：${reason}` : ''}。`,
      businessType: row.kind,
      businessId: row.id,
    });
  }

  private async cancel(row: TaskRow) {
    if (!row.job_id) return;
    await this.executor(row.sub_center_id).cancel(this.refOf(row));
  }

  // ---- helpers ----------------------------------------------------------------------------------------

  private async owned(p: Principal, kind: TaskKind, id: string): Promise<TaskRow> {
    const row = await this.repo.findOwned(p.userId, kind, id);
    if (!row) throw notFound('任务');
    return row;
  }

  private homeOf(row: Pick<TaskRow, 'sub_center_id' | 'account'>) {
    return jobHomeOf(this.center(row.sub_center_id), row.account);
  }

  private accountOf(row: TaskRow) {
    return { name: row.account, uid: uidOfAccount(this.center(row.sub_center_id), row.account), home: this.homeOf(row) };
  }

  private refOf(row: TaskRow): JobRef {
    return { jobId: row.job_id!, taskId: row.id, account: this.accountOf(row) };
  }

  /** What the executor runs: rebuilt from the stored row, so a retry after a restart sends the same job. */
  specOf(row: TaskRow): JobSpec {
    const center = this.center(row.sub_center_id);
    const cardType = center.cardTypes.find((c) => c.id === row.card_type_id)!;
    const account = this.accountOf(row);
    const workDir = path.join(account.home, row.work_dir);
    const outputPath = path.join(account.home, row.log_path);
    const env: Record<string, string> = {};
    for (const v of JSON.parse(row.env) as EnvVar[]) env[v.name] = v.value;
    const image = row.image_id ? this.images(row.image_id) : undefined;
    const mounts = mountsOf(row);
    return {
      taskId: row.id,
      name: row.name,
      account,
      workDir,
      script: row.kind === 'training' ? `#!/bin/bash\n${row.type === 'develop' ? IDE_PREAMBLE : ''}${row.command}\n` : row.command,
      launch: row.kind === 'training' ? 'workers' : 'batch',
      env: {
        ...env,
        ...platformEnv({ taskId: row.id, workDir }, { metrics: path.join(account.home, metricsPath(row)), exit: path.join(account.home, exitPath(row)) }),
        ...(row.type === 'develop' ? this.ideEnv(row, account.home) : {}),
        ...Object.fromEntries(mounts.map((m) => [m.env, m.path])),
      },
      readOnly: mounts.map((m) => m.path),
      cardType,
      cardsPerNode: row.card_num,
      nodes: row.node_num,
      tasksPerNode: row.kind === 'training' && row.type === 'distributed' ? Math.max(1, row.card_num) : 1,
      timeLimitMinutes: row.max_duration_min,
      outputPath,
      image: image ? { id: row.image_id, uri: image.uri } : undefined,
    };
  }

  toTask(r: TaskRow): Task {
    const center = this.centerMap.get(r.sub_center_id);
    const num = (v: number | null) => (v === null ? null : Number(v));
    return {
      id: r.id,
      kind: r.kind as TaskKind,
      type: r.type,
      name: r.name,
      subCenterId: r.sub_center_id,
      subCenterName: center?.name ?? r.sub_center_id,
      placementReason: r.placement_reason,
      cardTypeId: r.card_type_id,
      cardTypeName: center?.cardTypes.find((c) => c.id === r.card_type_id)?.name ?? r.card_type_id,
      cardNum: r.card_num,
      nodeNum: r.node_num,
      imageId: r.image_id,
      imageName: (r.image_id && this.images(r.image_id)?.name) || r.image_id,
      command: r.command,
      workDir: r.work_dir,
      env: JSON.parse(r.env) as EnvVar[],
      maxDurationMinutes: r.max_duration_min,
      state: r.state as JobState,
      reason: r.reason,
      estimatedStart: num(r.estimated_start),
      jobId: r.job_id,
      exitCode: r.exit_code,
      logPath: r.log_path,
      createTime: Number(r.create_time),
      startTime: num(r.start_time),
      endTime: num(r.end_time),
      templateId: r.template_id,
      params: r.params ? (JSON.parse(r.params) as Record<string, string | number>) : null,
      mounts: mountsOf(r),
    };
  }

  /** `segs` must be an existing directory in the account's home, reached without following links (else 1005/1308). */
  async requireDir(subCenterId: string, account: string, segs: string[], field: string) {
    const st = await this.storage
      .of(subCenterId)
      .stat(account, `/${segs.join('/')}`)
      .catch((e: unknown) => {
        if (e instanceof AppError && e.code === ErrorCode.ILLEGAL_PATH) throw new AppError(ErrorCode.ILLEGAL_PATH, `非法路径：${field} 中含有符号链接`);
        throw e;
      });
    if (st?.type === 'link') throw new AppError(ErrorCode.ILLEGAL_PATH, `非法路径：${field} 中含有符号链接`);
    if (st?.type !== 'dir') throw invalid(field, `目录不存在：/${segs.join('/')}`);
  }

  /**
   * Where a running develop task's IDE listens, for the owner only; 2011 until both halves are known. The
   * host is the node the scheduler allocated (`exec_host`, stored by the poller); the job's endpoint file
   * (`<port> <token>`, IDE_PREAMBLE) — in the user's home, so the user's to write — only names an
   * unprivileged port and the IDE's token, never where to connect (issue 17, ADR 0014).
   */
  async ideEndpoint(userId: string, id: string): Promise<{ host: string; port: number; token: string; subCenterId: string; account: string }> {
    const row = await this.repo.findOwned(userId, 'training', id);
    if (!row || row.type !== 'develop') throw notFound('开发环境');
    if (row.state !== 'RUNNING') throw new AppError(ErrorCode.TASK_IDE_NOT_READY, row.state === 'QUEUED' || row.state === 'STARTING' ? '开发环境尚未启动，请稍后再试' : '开发环境已停止');
    if (!row.exec_host) throw new AppError(ErrorCode.TASK_IDE_NOT_READY);
    const { bytes } = await this.readFile(row, endpointPath(row), 0, 512).catch(() => ({ bytes: Buffer.alloc(0) }));
    const endpoint = parseIdeEndpoint(bytes.toString('utf8'));
    if (!endpoint) throw new AppError(ErrorCode.TASK_IDE_NOT_READY);
    return { host: row.exec_host, ...endpoint, subCenterId: row.sub_center_id, account: row.account };
  }

  /**
   * A develop job's IDE variables: where to write its endpoint, and — on the local executor, whose jobs all
   * run on this host — the loopback address to listen on (a Slurm job looks up its node's NodeAddr itself,
   * IDE_PREAMBLE: the address the gateway will connect to).
   */
  private ideEnv(row: TaskRow, home: string): Record<string, string> {
    const env: Record<string, string> = { SUANLI_ENDPOINT_FILE: path.join(home, endpointPath(row)) };
    if (this.center(row.sub_center_id).scheduler.kind === 'local') env.SUANLI_IDE_HOST = '127.0.0.1';
    return env;
  }

  /**
   * How the owner opens a shell inside a running develop task with their own key pair: through the center's
   * login node into the job's allocation (Slurm centers; a local task has no login node — use Shell工具).
   */
  async sshCommand(p: Principal, id: string): Promise<TaskSsh> {
    const row = await this.repo.findOwned(p.userId, 'training', id);
    if (!row || row.type !== 'develop') throw notFound('开发环境');
    const center = this.center(row.sub_center_id);
    if (center.scheduler.kind !== 'slurm') throw new AppError(ErrorCode.SHELL_NOT_OFFERED, '本地执行的开发环境不提供 SSH 登录，请使用 Shell工具 或 打开 IDE');
    if (row.state !== 'RUNNING' || !row.job_id) throw new AppError(ErrorCode.TASK_IDE_NOT_READY, isTerminal(row.state as JobState) ? '开发环境已停止' : '开发环境尚未启动，请稍后再试');
    const portArg = center.loginPort === 22 ? '' : ` -p ${center.loginPort}`;
    return {
      host: center.loginHost,
      port: center.loginPort,
      account: row.account,
      jobId: row.job_id,
      command: `ssh${portArg} -t ${row.account}@${center.loginHost} srun --jobid=${row.job_id} --overlap --pty bash -l`,
    };
  }

  /** Names of the owner's tasks among `ids`, any family (work orders link one); others' and deleted ones are absent. */
  async namesOf(ownerId: string, ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await this.repo.namesOwned(ownerId, [...new Set(ids)]);
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** A task's state (undefined once deleted): for sweeps that end what a task's end ends. */
  async stateOf(id: string): Promise<string | undefined> {
    return (await this.repo.get(id))?.state;
  }

  private async readExitFile(row: TaskRow): Promise<number | null> {
    const { bytes } = await this.readFile(row, exitPath(row), 0, 16).catch(() => ({ bytes: Buffer.alloc(0) }));
    const n = Number.parseInt(bytes.toString('utf8').trim(), 10);
    return Number.isInteger(n) && n >= 0 && n <= 255 ? n : null;
  }

  private async readFile(row: TaskRow, userPath: string, offset: number, limit: number) {
    return (await this.storage.of(row.sub_center_id).readFile(row.account, userPath, offset, limit)) ?? { bytes: Buffer.alloc(0), size: 0 };
  }
}

/** Where a develop task's job writes its IDE's address (IDE_PREAMBLE). */
const endpointPath = (row: Pick<TaskRow, 'log_path'>) => row.log_path.replace(/\.log$/, '.endpoint');

/**
 * Runs before a develop task's command: picks the address to listen on (SUANLI_IDE_HOST: loopback on the
 * local executor; on Slurm the node's NodeAddr, which is where the gateway connects — never all
 * interfaces), a free port and a random token, exports them (SUANLI_IDE_HOST, SUANLI_IDE_PORT,
 * SUANLI_IDE_TOKEN) and writes `<port> <token>` to SUANLI_ENDPOINT_FILE (mode 0600 in the account's home) for
 * the gateway's proxy, which adds the token to every request. The token is only ever in the environment and
 * that file — never on a command line, which every account on a shared node can read in /proc/<pid>/cmdline
 * (`printf` is a bash builtin; `od`/`tr` only see the random bytes on a pipe).
 */
const IDE_PREAMBLE = [
  'if [ -z "${SUANLI_IDE_HOST:-}" ]; then',
  '  SUANLI_IDE_HOST=$(scontrol show node "${SLURMD_NODENAME:-$(hostname -s)}" 2>/dev/null | tr " " "\\n" | sed -n "s/^NodeAddr=//p" | head -n 1)',
  'fi',
  'if [ -z "$SUANLI_IDE_HOST" ]; then echo "开发环境启动失败：无法确定本节点的地址（scontrol show node）" >&2; exit 1; fi',
  'SUANLI_IDE_PORT=$(python3 -c \'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])\' "$SUANLI_IDE_HOST")',
  'SUANLI_IDE_TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d " \\n")',
  'export SUANLI_IDE_HOST SUANLI_IDE_PORT SUANLI_IDE_TOKEN',
  '(umask 077; printf "%s %s\\n" "$SUANLI_IDE_PORT" "$SUANLI_IDE_TOKEN" > "$SUANLI_ENDPOINT_FILE.tmp" && mv -f "$SUANLI_ENDPOINT_FILE.tmp" "$SUANLI_ENDPOINT_FILE")',
  '',
].join('\n');

/** Ports below this are the system's (sshd, a mail server…): an IDE never gets one. */
const FIRST_UNPRIVILEGED_PORT = 1024;

/** `<port> <token>` as a develop job wrote it; anything else (a host, a privileged port, junk) is not an endpoint. */
export function parseIdeEndpoint(text: string): { port: number; token: string } | null {
  const m = /^(\d{1,5}) ([A-Za-z0-9_-]{16,128})$/.exec(text.trim());
  if (!m) return null;
  const port = Number(m[1]);
  return port >= FIRST_UNPRIVILEGED_PORT && port <= 65535 ? { port, token: m[2] } : null;
}

const metricsPath = (row: Pick<TaskRow, 'log_path'>) => row.log_path.replace(/\.log$/, '.metrics.jsonl');
/** Where the job's wrapper writes its exit code (the Slurm executor's batch script). */
const exitPath = (row: Pick<TaskRow, 'log_path'>) => row.log_path.replace(/\.log$/, '.exit');

/** The number of leading bytes that end on a UTF-8 character boundary. */
export function completeUtf8(b: Buffer): number {
  let i = b.length;
  // Step back over continuation bytes (10xxxxxx) to the last lead byte, and keep it only if complete.
  let back = 0;
  while (i > 0 && back < 4 && (b[i - 1] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return b.length;
  const lead = b[i - 1];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === back + 1 ? b.length : i - 1;
}

/** One metrics line: a JSON object; only its finite numbers are kept. Anything else is skipped. */
export function parseMetricLine(line: string): MetricPoint | null {
  try {
    const v = JSON.parse(line) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    const out: MetricPoint = {};
    let n = 0;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'number' && Number.isFinite(x) && k.length <= 64 && n < 32) {
        out[k] = x;
        n++;
      }
    }
    return n ? out : null;
  } catch {
    return null;
  }
}

/** The mounts stored on a task row (older rows have none). */
function mountsOf(r: Pick<TaskRow, 'mounts'>): TaskMount[] {
  try {
    return JSON.parse(r.mounts ?? '[]') as TaskMount[];
  } catch {
    return [];
  }
}
