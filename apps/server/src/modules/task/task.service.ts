import path from 'node:path';
import {
  CLIENT_REQUEST_TTL_MS,
  ErrorCode,
  isTerminal,
  taskFolder,
  teamOfPayer,
  type EnvVar,
  type JobState,
  type Task,
  type TaskKind,
  type TaskMount,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, invalid } from '../../errors';
import type { JobSpec } from '../../executors/executor';
import { newId } from '../../lib/id';
import type { Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import { mountsOf, type JobSpecs } from './job-spec';
import { UNDERPOWERED_REASON, type MeterTask, type TaskCompute } from './task-compute';
import type { TaskFiles } from './task-files';
import type { TaskQueries } from './task-queries';
import type { TaskTransitions } from './task-transitions';
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
  /** A folder of the owner's home that must exist; absent: the task's own folder (`taskFolder`), made for it. */
  workDir?: string;
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
  /** 付费方: a team the caller belongs to pays (ADR 0017); absent: the caller. */
  payerTeamId?: string;
  /** The caller's own task of the same family this one reruns (the caller checked it): 原任务 on the detail. */
  resubmittedFrom?: string;
}

/** A task on a center waiting (CREATED) for the versions it mounts to be synced there. */
export interface WaitingTask {
  row: TaskRow;
  mounts: TaskMount[];
}

/** What one poll of a center found, for its poller and the modules that act after it. */
export interface PollRound {
  /** The center has a task not ended (CREATED or active): polled every tick, else it may idle. */
  watching: boolean;
  /** Its tasks waiting for the versions they mount (the asset module releases or fails them). */
  waiting: WaitingTask[];
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

/**
 * The task module's state engine, which both task families share (design/domain.md, job_states) — what is
 * asked of it: it stores a task and submits it to its center's executor (idempotently: retries find the
 * first job by the task id), releases or fails a task waiting for data, stops and deletes a task for its
 * owner (and stops one whose compute power ran out), and runs a center's poll. Every kind of task is
 * created in one place (createOnce), behind compute power's submit gate (ADR 0015). How a task then moves —
 * the scheduler's reports applied through task-state.ts, every change stored with its reason and announced —
 * is task-transitions.ts. Whose a task is, and the reads, are the access/query part's (task-queries.ts); a
 * job's files are read by the log/metrics reader (task-files.ts); the job itself is built by job-spec.ts.
 */
export class TaskService {
  constructor(
    private readonly repo: TaskRepository,
    private readonly transitions: TaskTransitions,
    private readonly jobs: JobSpecs,
    private readonly queries: Pick<TaskQueries, 'owned' | 'toTask' | 'centers'>,
    private readonly files: Pick<TaskFiles, 'requireDir' | 'makeDir'>,
    private readonly clusterAccounts: Pick<ClusterAccountService, 'ensure'>,
    private readonly clock: () => number,
    private readonly log: { warn: (o: object, msg: string) => void },
    /** Compute power (order module, ADR 0015): the submit gate, the final draw before a delete. */
    private readonly compute: Pick<TaskCompute, 'gate' | 'settle'>,
    /** The center module: refuses a submit to a center in 维护 or 下线, naming the operators' notice (2012/2013). */
    private readonly centerGate: { requireOpen(centerId: string): Promise<void> },
  ) {}

  /** Every configured center, in config order. */
  centers(): CenterConfig[] {
    return this.queries.centers();
  }

  /** The center (1205 算力分中心 for an unknown id). */
  center(subCenterId: string): CenterConfig {
    return this.jobs.center(subCenterId);
  }

  /**
   * The absolute path of the caller's home on the center as their jobs see it (JobSpec.account.home), the
   * account made on first use: what Slurm templates put in front of a path parameter.
   */
  async jobHome(p: Principal, subCenterId: string): Promise<string> {
    const account = await this.clusterAccounts.ensure(p.userId, this.center(subCenterId).id);
    return this.jobs.homeOf({ sub_center_id: subCenterId, account: account.account });
  }

  /** What the executor runs for a stored task (job-spec.ts). */
  specOf(row: TaskRow): JobSpec {
    return this.jobs.specOf(row);
  }

  // ---- submission -------------------------------------------------------------------------------------

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
    await this.centerGate.requireOpen(center.id);
    const cardType = center.cardTypes.find((c) => c.id === t.cardTypeId);
    if (!cardType) throw new AppError(ErrorCode.CARD_TYPE_NOT_OFFERED);
    if (t.cardNum > cardType.cardsPerNode) throw new AppError(ErrorCode.CARDS_EXCEED_NODE, `每节点卡数超出上限：${cardType.name} 每节点最多 ${cardType.cardsPerNode} 张`);
    if (t.nodeNum > cardType.nodes) throw new AppError(ErrorCode.NODES_EXCEED_CENTER, `节点数超出上限：${cardType.name} 共 ${cardType.nodes} 个节点`);
    // Every kind of task is created here: none is stored without compute power for its first period (2507).
    const payer = await this.compute.gate(p.userId, center.id, cardType.id, t.cardNum, t.nodeNum, t.payerTeamId ? { principal: p, teamId: t.payerTeamId } : undefined);
    const account = await this.clusterAccounts.ensure(p.userId, center.id);
    const now = this.clock();
    const id = newId(now);
    const home = { sub_center_id: center.id, account: account.account };
    // Without a folder of the user's choice a task gets its own (issue 22): its outputs, log and the files
    // its tools leave beside them stay together there instead of piling up in the home's root.
    if (t.workDir === undefined) await this.files.makeDir(home, taskFolder(t.name.trim(), id));
    const workDir = await this.files.requireDir(home, t.workDir ?? taskFolder(t.name.trim(), id), 'workDir');
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
      payer_id: payer,
      reason_code: null,
      exit_signal: null,
      job_usage: null,
      resubmitted_from: t.resubmittedFrom ?? null,
    };
    if (t.clientRequestId) await this.repo.releaseClientRequest(p.userId, t.clientRequestId, now - CLIENT_REQUEST_TTL_MS);
    if (!(await this.repo.insert(row))) {
      // A request with the same id inserted first (both looked before either stored): its task is the answer.
      const first = await this.submitted(p, t.kind, t.clientRequestId!);
      if (first) return { task: first, created: false };
      throw invalid('clientRequestId', '提交编号冲突，请重新提交');
    }
    if (!t.waitingFor) await this.submit(row);
    return { task: this.queries.toTask((await this.repo.get(id))!), created: true };
  }

  /**
   * The caller's task made by the submission `clientRequestId` within CLIENT_REQUEST_TTL_MS, if any: what a
   * retried submission answers. An id of the caller's other task family is refused (1005).
   */
  async submitted(p: Principal, kind: TaskKind, clientRequestId: string): Promise<Task | undefined> {
    const row = await this.repo.findByClientRequest(p.userId, clientRequestId);
    if (!row || Number(row.create_time) <= this.clock() - CLIENT_REQUEST_TTL_MS) return undefined;
    if (row.kind !== kind) throw invalid('clientRequestId', '该提交编号已用于另一类任务，请重新提交');
    return this.queries.toTask(row);
  }

  /** The parameters of one of the caller's tasks, for copy-and-resubmit and save-as-template. */
  async parameters(p: Principal, kind: TaskKind, id: string): Promise<NewTask> {
    const r = await this.queries.owned(p, kind, id);
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
      // A task's own folder is its own: the same parameters again get a new one.
      workDir: r.work_dir === taskFolder(r.name, r.id) ? undefined : r.work_dir,
      env: JSON.parse(r.env) as EnvVar[],
      maxDurationMinutes: r.max_duration_min,
      templateId: r.template_id,
      params: r.params ? (JSON.parse(r.params) as Record<string, string | number>) : null,
      mounts: mountsOf(r),
      // 重新提交 charges the same payer again (checked again at the gate: the caller may have left the team).
      payerTeamId: teamOfPayer(r.payer_id) ?? undefined,
    };
  }

  /** The data a waiting task mounts is on its center: submit it (once, whoever calls first). */
  async releaseWaiting(row: TaskRow) {
    if (!(await this.transitions.move(row, { state: 'SUBMITTING', reason: '', waiting_data: 0 }))) return;
    await this.transitions.submitAttempt({ ...row, state: 'SUBMITTING', waiting_data: 0 });
  }

  /** A waiting task whose data could not be synced ends FAILED with the reason. */
  async failWaiting(row: TaskRow, reason: string) {
    await this.transitions.move(row, { state: 'FAILED', reason, waiting_data: 0, end_time: this.clock() });
  }

  // ---- the owner's changes ----------------------------------------------------------------------------

  /** Asks the scheduler to end the job; the task shows 停止中 until the scheduler confirms. */
  async stop(p: Principal, kind: TaskKind, id: string): Promise<Task> {
    const row = await this.queries.owned(p, kind, id, 'task.write');
    const state = row.state as JobState;
    if (isTerminal(state)) throw new AppError(ErrorCode.TASK_NOT_STOPPABLE);
    if (state !== 'STOPPING') {
      const moved = await this.transitions.move(row, { state: 'STOPPING', reason: '用户请求停止' });
      if (!moved) return this.stop(p, kind, id);
    }
    const now = (await this.repo.get(id))!;
    await this.transitions.cancel(now).catch((err: unknown) => this.log.warn({ err, taskId: id }, 'cancel failed; the poller retries'));
    return this.queries.toTask((await this.repo.get(id))!);
  }

  /**
   * Metering found the task's compute power used up (ADR 0015): STOPPING with UNDERPOWERED_REASON and the job
   * cancelled; it ends UNDERPOWERED when the scheduler reports the end (task-state.ts; the poll retries the
   * cancel).
   */
  async stopUnderpowered(id: string, reason = UNDERPOWERED_REASON): Promise<boolean> {
    const row = await this.repo.get(id);
    if (!row || row.state !== 'RUNNING') return false;
    if (!(await this.transitions.move(row, { state: 'STOPPING', reason }))) return false;
    await this.transitions.cancel(row).catch((err: unknown) => this.log.warn({ err, taskId: id }, 'cancel failed; the poller retries'));
    return true;
  }

  async remove(p: Principal, kind: TaskKind, id: string): Promise<null> {
    const row = await this.queries.owned(p, kind, id, 'task.write');
    if (!isTerminal(row.state as JobState)) throw new AppError(ErrorCode.TASK_NOT_DELETABLE);
    // Its final draw first: a task deleted before the next metering pass is still paid for.
    if (row.start_time !== null) await this.compute.settle(meterTaskOf(row));
    await this.repo.remove(p.userId, id);
    return null;
  }

  // ---- the engine -------------------------------------------------------------------------------------

  /**
   * One poll of a center (the poller's body): submits tasks a dead gateway left CREATED, retries pending
   * submits, then applies what the scheduler says of every active job (task-transitions.ts).
   */
  async poll(subCenterId: string): Promise<PollRound> {
    const { watching, waiting } = await this.transitions.poll(subCenterId);
    return { watching, waiting: waiting.map((row) => ({ row, mounts: mountsOf(row) })) };
  }

  private async submit(row: TaskRow) {
    if (!(await this.transitions.move(row, { state: 'SUBMITTING', reason: '' }))) return;
    await this.transitions.submitAttempt({ ...row, state: 'SUBMITTING' });
  }
}

/** A started task as metering reads it. */
function meterTaskOf(r: TaskRow): MeterTask {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return { ...r, card_num: Number(r.card_num), node_num: Number(r.node_num), start_time: Number(r.start_time), end_time: n(r.end_time) };
}
