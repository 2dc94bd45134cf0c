import type { Readable } from 'node:stream';
import {
  ErrorCode,
  formatCardHours,
  isTerminal,
  teamOfPayer,
  type Diagnosis,
  type EnvVar,
  type JobState,
  type Page,
  type Task,
  type TaskDetail,
  type TaskKind,
  type TaskLog,
  type TaskLogQuery,
  type TaskComparison,
  type TaskMetrics,
  type TaskPageQuery,
  type TaskSsh,
  TASK_COMPARE_MAX,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, notFound } from '../../errors';
import type { CardCapacity, Executor } from '../../executors/executor';
import type { AccessService } from '../access/access.service';
import type { Action } from '../access/access.policy';
import type { Caller, Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import { diagnosisOf, efficiencyOf } from './diagnosis/task-diagnosis';
import { mountsOf, type ImageLookup } from './job-spec';
import type { TaskCompute } from './task-compute';
import type { TaskFiles } from './task-files';
import type { TaskRepository, TaskRow } from './task.repository';

/**
 * The access/query part of the task module: a caller's own tasks (list, detail, log, curves, the way into a
 * running develop environment) — each looked up by id and handed to the access module, which answers 1205
 * for anything not the caller's — and what other modules ask about tasks (placement's queues and capacity,
 * the names a work order links, whether a version is mounted, a task's state). Reads only: what changes a
 * task is the state engine's (task.service.ts); what reads a job's files is the reader's (task-files.ts).
 */
export class TaskQueries {
  constructor(
    private readonly repo: TaskRepository,
    private readonly executors: ReadonlyMap<string, Executor>,
    private readonly centerMap: ReadonlyMap<string, CenterConfig>,
    private readonly clusterAccounts: Pick<ClusterAccountService, 'list'>,
    private readonly files: TaskFiles,
    private readonly images: ImageLookup,
    private readonly access: Pick<AccessService, 'found'>,
    /** Compute power (order module, ADR 0015): what a task has drawn so far (已消耗). */
    private readonly compute: Pick<TaskCompute, 'consumed'>,
  ) {}

  /**
   * The task `id` of this family when `p` may do `action` to it; a missing task, one of the other family and
   * another user's all answer 1205 naming `what`.
   */
  async owned(p: Caller, kind: TaskKind, id: string, action: Action = 'task.read', what = '任务'): Promise<TaskRow> {
    const row = await this.repo.get(id);
    return this.access.found(p, action, row?.kind === kind ? row : undefined, (r) => ({ ownerId: r.owner_id }), what);
  }

  // ---- the caller's tasks ------------------------------------------------------------------------------

  async page(p: Principal, kind: TaskKind, q: TaskPageQuery): Promise<Page<Task>> {
    const { rows, total } = await this.repo.page(p.userId, kind, q, (q.pageNum - 1) * q.pageSize, q.pageSize);
    return { list: rows.map((r) => this.toTask(r)), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, kind: TaskKind, id: string): Promise<TaskDetail> {
    const row = await this.owned(p, kind, id);
    const events = await this.repo.events(id);
    return {
      ...this.toTask(row),
      events: events.map((e) => ({ state: e.state as JobState, reason: e.reason, time: Number(e.time) })),
      consumed: formatCardHours(await this.compute.consumed(id)),
      diagnosis: await this.diagnosis(row),
      efficiency: efficiencyOf(row),
      resubmittedFrom: await this.original(row),
    };
  }

  /** 原任务: the task `row` was resubmitted from, while it exists and is still its owner's of the same family. */
  private async original(row: TaskRow): Promise<TaskDetail['resubmittedFrom']> {
    if (!row.resubmitted_from) return null;
    const o = await this.repo.get(row.resubmitted_from);
    return o && o.owner_id === row.owner_id && o.kind === row.kind ? { id: o.id, type: o.type, name: o.name } : null;
  }

  /**
   * Why a FAILED/STOPPED task ended (issue 23): from the stored evidence and the log's last lines. An ended
   * task's never changes, so it is kept (bounded) instead of reading the log on every detail.
   */
  private async diagnosis(row: TaskRow): Promise<Diagnosis | null> {
    if (row.state !== 'FAILED' && row.state !== 'STOPPED') return null;
    const key = `${row.id}:${row.update_time}`;
    const known = this.diagnoses.get(key);
    if (known !== undefined) return known;
    const d = diagnosisOf(row, await this.files.logTail(row).catch(() => []));
    if (this.diagnoses.size >= 500) this.diagnoses.delete(this.diagnoses.keys().next().value!);
    this.diagnoses.set(key, d);
    return d;
  }

  private readonly diagnoses = new Map<string, Diagnosis | null>();

  async readLog(p: Principal, kind: TaskKind, id: string, q: TaskLogQuery): Promise<TaskLog> {
    return this.files.readLog(await this.owned(p, kind, id), q);
  }

  /** The whole log as a stream, for download. */
  async openLog(p: Principal, kind: TaskKind, id: string): Promise<{ stream: Readable; size: number; name: string }> {
    return this.files.openLog(await this.owned(p, kind, id));
  }

  /** Training curves: complete JSON lines of numbers after `offset`, at most METRICS_MAX_POINTS per answer. */
  async readMetrics(p: Principal, kind: TaskKind, id: string, offset: number): Promise<TaskMetrics> {
    return this.files.readMetrics(await this.owned(p, kind, id), offset);
  }

  /**
   * 任务对比 (issue 23 item 4): the caller's own tasks of this family, in the order asked (an id given twice
   * counts once), each with its training curve's first points. Each is checked like a detail (1205 for one
   * that is not the caller's or not of this family); more than TASK_COMPARE_MAX answer 2014 and tasks of
   * different types (train against distributed, template against custom) 2015, before any file is read.
   */
  async compare(p: Principal, kind: TaskKind, ids: string[]): Promise<TaskComparison> {
    const unique = [...new Set(ids)];
    if (unique.length > TASK_COMPARE_MAX) throw new AppError(ErrorCode.TASK_COMPARE_TOO_MANY);
    const rows = await Promise.all(unique.map((id) => this.owned(p, kind, id)));
    if (new Set(rows.map((r) => r.type)).size > 1) throw new AppError(ErrorCode.TASK_COMPARE_MIXED);
    const tasks = await Promise.all(
      rows.map(async (row) => {
        // A run whose curve cannot be read (no file yet, the center unreachable) is still compared by its parameters.
        const m = await this.files.readMetrics(row, 0).catch(() => ({ points: [], truncated: false }));
        return { ...this.toTask(row), metrics: m.points, metricsTruncated: m.truncated };
      }),
    );
    return { tasks };
  }

  /**
   * Where a running develop task's IDE listens, for the owner only; 2011 until both halves are known. The
   * host is the node the scheduler allocated (`exec_host`, stored by the poller); the job's endpoint file
   * (`<port> <token>`, IDE_PREAMBLE) — in the user's home, so the user's to write — only names an
   * unprivileged port and the IDE's token, never where to connect (issue 17, ADR 0014). The proxy's grant
   * names the user only: a caller without roles, which is all an owner's check reads.
   */
  async ideEndpoint(userId: string, id: string): Promise<{ host: string; port: number; token: string; subCenterId: string; account: string }> {
    const row = await this.develop({ userId, roles: [] }, id);
    if (row.state !== 'RUNNING') throw new AppError(ErrorCode.TASK_IDE_NOT_READY, row.state === 'QUEUED' || row.state === 'STARTING' ? '开发环境尚未启动，请稍后再试' : '开发环境已停止');
    if (!row.exec_host) throw new AppError(ErrorCode.TASK_IDE_NOT_READY);
    const endpoint = await this.files.ideEndpoint(row);
    if (!endpoint) throw new AppError(ErrorCode.TASK_IDE_NOT_READY);
    return { host: row.exec_host, ...endpoint, subCenterId: row.sub_center_id, account: row.account };
  }

  /**
   * How the owner opens a shell inside a running develop task with their own key pair: through the center's
   * login node into the job's allocation (Slurm centers; a local task has no login node — use Shell工具).
   */
  async sshCommand(p: Principal, id: string): Promise<TaskSsh> {
    const row = await this.develop(p, id);
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

  /** The caller's develop environment (a training task of type develop); anything else is 1205 开发环境. */
  private async develop(p: Caller, id: string): Promise<TaskRow> {
    const row = await this.owned(p, 'training', id, 'task.read', '开发环境');
    if (row.type !== 'develop') throw notFound('开发环境');
    return row;
  }

  // ---- for other modules --------------------------------------------------------------------------------

  /** Every configured center, in config order. */
  centers(): CenterConfig[] {
    return [...this.centerMap.values()];
  }

  center(subCenterId: string): CenterConfig {
    const c = this.centerMap.get(subCenterId);
    if (!c) throw notFound('算力分中心');
    return c;
  }

  cardTypeName(cardTypeId: string): string {
    for (const c of this.centerMap.values()) {
      const t = c.cardTypes.find((x) => x.id === cardTypeId);
      if (t) return t.name;
    }
    return cardTypeId;
  }

  /** The center's cards as its scheduler reports them now (placement). */
  capacity(subCenterId: string): Promise<CardCapacity[]> {
    const e = this.executors.get(subCenterId);
    if (!e) throw notFound('算力分中心');
    return e.capacity();
  }

  /** Tasks waiting per card type on a center (placement's "shortest queue"). */
  queued(subCenterId: string): Promise<Map<string, number>> {
    return this.repo.queuedByCardType(subCenterId);
  }

  /** Whether the user already has `workDir` on the center (without creating an account there). */
  async holdsDir(userId: string, subCenterId: string, workDir: string): Promise<boolean> {
    const [account] = await this.clusterAccounts.list(userId, subCenterId);
    if (!account) return false;
    return this.files.holdsDir({ sub_center_id: subCenterId, account: account.account }, workDir);
  }

  /** Whether an unfinished task (of anyone) mounts this asset, or this version of it: then it cannot go. */
  mountsInUse(assetId: string, versionId?: string): Promise<boolean> {
    return this.repo.unfinishedMounting(versionId ?? assetId);
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

  /** A stored task as the contract shows it. */
  toTask(r: TaskRow): Task {
    const center = this.centerMap.get(r.sub_center_id);
    const num = (v: number | null) => (v === null ? null : Number(v));
    return {
      id: r.id,
      payerTeamId: teamOfPayer(r.payer_id),
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
}
