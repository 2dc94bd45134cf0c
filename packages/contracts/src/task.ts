import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, PageQuery } from './common';
import { Diagnosis, DiagnosisChange, Efficiency, TaskOrigin } from './diagnosis';

/**
 * Compute: the task families (training, slurm) share one state machine (`job_states`, design/domain.md),
 * one executor interface and these shapes. Training calls live under TRAINING_BASE, Slurm templates and
 * tasks under SLURM_BASE; their descriptors are in task-api.ts (the calls both share), training.ts and slurm.ts.
 */
export const TRAINING_BASE = '/gateway/training/api/v1';
export const SLURM_BASE = '/gateway/slurm/api/v1';

export const JOB_STATES = ['CREATED', 'SUBMITTING', 'SUBMIT_FAILED', 'QUEUED', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'SUCCEEDED', 'FAILED', 'UNDERPOWERED'] as const;
export const JobState = Type.Union(JOB_STATES.map((s) => Type.Literal(s)));
export type JobState = (typeof JOB_STATES)[number];

/** A task never leaves one of these. */
export const TERMINAL_STATES: readonly JobState[] = ['SUBMIT_FAILED', 'STOPPED', 'SUCCEEDED', 'FAILED', 'UNDERPOWERED'];
export const isTerminal = (s: JobState) => TERMINAL_STATES.includes(s);
/** States whose owner gets a `task` message (the rest only move the socket event). */
export const NOTIFIED_STATES: readonly JobState[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'STOPPED', 'UNDERPOWERED'];

export const TaskKind = Type.Union([Type.Literal('training'), Type.Literal('slurm')]);
export type TaskKind = Static<typeof TaskKind>;
export const TRAINING_TYPES = ['train', 'develop', 'distributed'] as const;
export const TrainingType = Type.Union(TRAINING_TYPES.map((t) => Type.Literal(t)));
export type TrainingType = (typeof TRAINING_TYPES)[number];
/** Slurm tasks come from a template or a custom script (`/slurm-task/task/:type`). */
export const SlurmTaskType = Type.Union([Type.Literal('template'), Type.Literal('custom')]);
export type SlurmTaskType = Static<typeof SlurmTaskType>;

/** Limits the forms and the server share. */
export const TASK_NAME_MAX = 64;
export const TASK_COMMAND_MAX = 8192;
export const TASK_ENV_MAX = 32;
export const TASK_MAX_DURATION_MINUTES = 7 * 24 * 60;
export const TASK_DEFAULT_DURATION_MINUTES = 60;
/** Work directory chosen in the storage picker; user-visible path inside the home (`/` = the home). */
/**
 * An image of the catalogue: a public image's id from the centers file (no slash), or a private image as its
 * registry reference without the host, `<namespace>/<repository>:<tag>` (ADR 0009).
 */
export const ImageId = Type.String({ minLength: 1, maxLength: 256 });
export type ImageId = Static<typeof ImageId>;
export const TaskPath = Type.String({ minLength: 1, maxLength: 1024, pattern: '^/' });
export type TaskPath = Static<typeof TaskPath>;

/** Where a task's own working folders live in the owner's home (issue 22 problem 2). */
export const TASKS_FOLDER = '/tasks';

/**
 * The working folder a task gets when its form leaves 工作目录 empty: `/tasks/<name>-<id>`, made by the
 * platform as the user. The name keeps letters, digits, `_`, `.` and `-` (anything else becomes `-`, at most 40
 * characters, never a leading dot); the task id makes it unique. The console uses it to tell a task's own
 * folder from one the user chose (a copy gets a folder of its own again).
 */
export function taskFolder(name: string, id: string): string {
  const slug = [...name.normalize('NFC').replace(/[^\p{L}\p{N}_.-]+/gu, '-')].slice(0, 40).join('').replace(/^[-.]+|-+$/g, '');
  return `${TASKS_FOLDER}/${slug ? `${slug}-` : ''}${id}`;
}

export const EnvVar = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }),
  value: Type.String({ maxLength: 4096 }),
});
export type EnvVar = Static<typeof EnvVar>;

/** `'auto'` = 智能调度: the server places the task (PlacementPreview says where and why). */
export const AUTO_PLACEMENT = 'auto';

/** Dataset and model versions a training task mounts read-only (issue 11): at most this many. */
export const TASK_MOUNTS_MAX = 8;
export const TaskMountInput = Type.Object({
  kind: Type.Union([Type.Literal('dataset'), Type.Literal('model')]),
  assetId: Id,
  versionId: Id,
});
export type TaskMountInput = Static<typeof TaskMountInput>;
/**
 * A mounted version as the task sees it: the folder (read-only) in `$<env>` — `SUANLI_DATASET_1`,
 * `SUANLI_DATASET_2`…, `SUANLI_MODEL_1`… in the order given.
 */
export const TaskMount = Type.Composite([
  TaskMountInput,
  Type.Object({ name: Type.String(), version: Type.Integer(), env: Type.String(), path: Type.String() }),
]);
export type TaskMount = Static<typeof TaskMount>;

/**
 * A submission's own id, made by the console when the user submits a task form and sent again if that
 * submission is retried (a network error may hide a task that was created): the same id from the same user
 * within CLIENT_REQUEST_TTL_MS answers the first task instead of making a second. Optional.
 */
export const CLIENT_REQUEST_ID_PATTERN = '^[A-Za-z0-9_-]{8,64}$';
export const ClientRequestId = Type.String({ pattern: CLIENT_REQUEST_ID_PATTERN });
export type ClientRequestId = Static<typeof ClientRequestId>;
/** How long a submission's id names its task; after that the id may be used again for a new one. */
export const CLIENT_REQUEST_TTL_MS = 24 * 3600_000;

export const TrainingTaskCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: TASK_NAME_MAX }),
  type: TrainingType,
  /** A center id, or `auto`. */
  subCenterId: Id,
  cardTypeId: Id,
  /** Cards per node. */
  cardNum: Type.Integer({ minimum: 1, maximum: 64 }),
  /** Nodes (distributed only; train and develop use 1). */
  nodeNum: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  imageId: ImageId,
  command: Type.String({ minLength: 1, maxLength: TASK_COMMAND_MAX }),
  /** Absent: the task's own folder `taskFolder(name, id)`, made for it. */
  workDir: Type.Optional(TaskPath),
  env: Type.Array(EnvVar, { maxItems: TASK_ENV_MAX, default: [] }),
  maxDurationMinutes: Type.Integer({ minimum: 1, maximum: TASK_MAX_DURATION_MINUTES, default: TASK_DEFAULT_DURATION_MINUTES }),
  /** 数据集 / 模型 versions to mount read-only (they must be on the task's center). */
  mounts: Type.Optional(Type.Array(TaskMountInput, { maxItems: TASK_MOUNTS_MAX })),
  clientRequestId: Type.Optional(ClientRequestId),
  /** 付费方: a team the caller belongs to pays (ADR 0017); absent: the caller. */
  payerTeamId: Type.Optional(Id),
  /** The caller's training task the form was filled from (复制, 按建议重新提交): linked as 原任务 (issue 23). */
  resubmittedFrom: Type.Optional(Id),
});
export type TrainingTaskCreate = Static<typeof TrainingTaskCreate>;

export const PlacementQuery = Type.Object({
  cardTypeId: Id,
  cardNum: Type.Integer({ minimum: 1, maximum: 64 }),
  nodeNum: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  workDir: Type.Optional(TaskPath),
});
export type PlacementQuery = Static<typeof PlacementQuery>;

export const PlacementCandidate = Type.Object({
  subCenterId: Id,
  subCenterName: Type.String(),
  /** Cards of the type free right now on the center. */
  available: Type.Integer(),
  total: Type.Integer(),
  /** Tasks of the card type waiting there. */
  queued: Type.Integer(),
  /** Whether the user's work directory already exists on that center's storage. */
  holdsWorkDir: Type.Boolean(),
});
export type PlacementCandidate = Static<typeof PlacementCandidate>;
export const Placement = Type.Object({
  subCenterId: Id,
  subCenterName: Type.String(),
  /** Why this center, in Chinese (shown before submitting). */
  reason: Type.String(),
  candidates: Type.Array(PlacementCandidate),
});
export type Placement = Static<typeof Placement>;

export const TaskEvent = Type.Object({
  state: JobState,
  /** Chinese reason (pending reason, exit code, 超时, 用户停止…), or empty. */
  reason: Type.String(),
  time: Millis,
});
export type TaskEvent = Static<typeof TaskEvent>;

/** One task of either family as lists and details show it. */
export const Task = Type.Object({
  id: Id,
  /** 付费方: the team paying for it (ADR 0017); absent or null: its owner. */
  payerTeamId: Type.Optional(Type.Union([Id, Type.Null()])),
  kind: TaskKind,
  /** train/develop/distributed, or template/custom. */
  type: Type.String(),
  name: Type.String(),
  subCenterId: Id,
  subCenterName: Type.String(),
  /** The placement reason when the user chose 智能调度, else empty. */
  placementReason: Type.String(),
  cardTypeId: Type.String(),
  cardTypeName: Type.String(),
  cardNum: Type.Integer(),
  nodeNum: Type.Integer(),
  imageId: Type.String(),
  imageName: Type.String(),
  /** Start command (training) or the rendered sbatch script (slurm). */
  command: Type.String(),
  workDir: Type.String(),
  env: Type.Array(EnvVar),
  maxDurationMinutes: Type.Integer(),
  state: JobState,
  /** Chinese reason of the current state (pending reason, failure cause), or empty. */
  reason: Type.String(),
  /** Scheduler's estimated start while QUEUED, when it gives one. */
  estimatedStart: Type.Union([Millis, Type.Null()]),
  /** The scheduler's job id (Slurm job id; local: `local-<n>`), once submitted. */
  jobId: Type.Union([Type.String(), Type.Null()]),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  /** User-visible path of the log (stdout and stderr). */
  logPath: Type.String(),
  createTime: Millis,
  startTime: Type.Union([Millis, Type.Null()]),
  endTime: Type.Union([Millis, Type.Null()]),
  /** Slurm tasks: the template they came from and the parameter values given. */
  templateId: Type.Union([Id, Type.Null()]),
  params: Type.Union([Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])), Type.Null()]),
  /** Training tasks: the dataset and model versions mounted read-only. */
  mounts: Type.Array(TaskMount),
});
export type Task = Static<typeof Task>;

export const TaskDetail = Type.Composite([
  Task,
  Type.Object({
    events: Type.Array(TaskEvent),
    /** 已消耗: compute power drawn for the task so far, a 卡时 string (ADR 0015); rises while it runs. */
    consumed: Type.String({ pattern: '^\\d+\\.\\d{2}$' }),
    /** Why a FAILED or STOPPED task ended and what to change (issue 23); null otherwise or when nothing is known. */
    diagnosis: Type.Union([Diagnosis, Type.Null()]),
    /** What an ended task used of what it asked for (issue 23 item 3); null until it has ended after running. */
    efficiency: Type.Union([Efficiency, Type.Null()]),
    /** 原任务 (issue 23): the task this one was resubmitted from, while it exists; null otherwise. */
    resubmittedFrom: Type.Union([TaskOrigin, Type.Null()]),
  }),
]);
export type TaskDetail = Static<typeof TaskDetail>;

export const TaskPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    /** Training: train/develop/distributed (the three list pages); slurm: template/custom. */
    type: Type.Optional(Type.String({ maxLength: 16 })),
    state: Type.Optional(JobState),
    keyword: Type.Optional(Type.String({ maxLength: TASK_NAME_MAX })),
  }),
]);
export type TaskPageQuery = Static<typeof TaskPageQuery>;

/** 重新提交 (`POST /tasks/{id}/resubmit`): the submission's id, as for a new task. */
export const TaskResubmit = Type.Object({
  clientRequestId: Type.Optional(ClientRequestId),
  /** 按建议重新提交: the diagnosis's change applied to the old parameters (issue 23). */
  change: Type.Optional(DiagnosisChange),
});
export type TaskResubmit = Static<typeof TaskResubmit>;

/** A window of a task's log: bytes [offset, nextOffset) decoded as UTF-8. Follow by asking again from nextOffset. */
export const TaskLogQuery = Type.Object({
  offset: Type.Integer({ minimum: 0, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 1024 * 1024, default: 256 * 1024 }),
});
export type TaskLogQuery = Static<typeof TaskLogQuery>;
export const TaskLog = Type.Object({
  content: Type.String(),
  offset: Type.Integer(),
  nextOffset: Type.Integer(),
  /** Current size of the log file. */
  size: Type.Integer(),
  /** The task is terminal and nothing is left to read. */
  eof: Type.Boolean(),
});
export type TaskLog = Static<typeof TaskLog>;

/** Training curves: JSON lines of scalars from `$SUANLI_METRICS_FILE`, read bounded. */
export const METRICS_ENV = 'SUANLI_METRICS_FILE';
export const METRICS_MAX_POINTS = 5000;
export const TaskMetricsQuery = Type.Object({ offset: Type.Integer({ minimum: 0, default: 0 }) });
export type TaskMetricsQuery = Static<typeof TaskMetricsQuery>;
export const MetricPoint = Type.Record(Type.String(), Type.Number());
export type MetricPoint = Static<typeof MetricPoint>;
export const TaskMetrics = Type.Object({
  points: Type.Array(MetricPoint),
  nextOffset: Type.Integer(),
  /** Points past METRICS_MAX_POINTS were dropped (the file is longer than the console draws). */
  truncated: Type.Boolean(),
});
export type TaskMetrics = Static<typeof TaskMetrics>;

/** Public image catalogue (config): what the form's image picker offers. */
export const ImageItem = Type.Object({
  id: ImageId,
  name: Type.String(),
  framework: Type.String(),
  version: Type.String(),
  /** CUDA / CANN / ROCm version, or empty. */
  accelerator: Type.String(),
  /** Card vendors the image runs on (`NVIDIA`, `Huawei`, `Hygon`, `Intel` for CPU). */
  cardVendors: Type.Array(Type.String()),
  uri: Type.String(),
  description: Type.String(),
  /** public: the catalogue of the centers file; private: a tag of one of the caller's registry repositories. */
  visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')])),
  /** The registry namespace of a private image (its owner's). */
  owner: Type.Optional(Type.String()),
});
export type ImageItem = Static<typeof ImageItem>;
export const ImageQuery = Type.Object({
  framework: Type.Optional(Type.String({ maxLength: 32 })),
  cardTypeId: Type.Optional(Id),
});
export type ImageQuery = Static<typeof ImageQuery>;

// ---- 科学计算: Slurm templates and tasks (SLURM_BASE) ---------------------------------------------------

/**
 * A template parameter, rendered as a form field. The script names it as `{{name}}`; the value is put in
 * shell-quoted (text, path) or as is (number, select — already restricted to safe values).
 */
export const TemplateParam = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,31}$' }),
  label: Type.String({ minLength: 1, maxLength: 32 }),
  type: Type.Union([Type.Literal('text'), Type.Literal('number'), Type.Literal('select'), Type.Literal('path')]),
  required: Type.Boolean({ default: true }),
  default: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Number()])),
  /** number: inclusive range. */
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  /** select: the allowed values. */
  options: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.:/+-]{1,64}$' }), { maxItems: 50 })),
  description: Type.Optional(Type.String({ maxLength: 256 })),
});
export type TemplateParam = Static<typeof TemplateParam>;

/** Resources a template suggests; the task form starts from them. */
export const TemplateDefaults = Type.Object({
  cardTypeId: Type.Optional(Id),
  cardNum: Type.Integer({ minimum: 0, maximum: 64, default: 0 }),
  nodeNum: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  maxDurationMinutes: Type.Integer({ minimum: 1, maximum: TASK_MAX_DURATION_MINUTES, default: TASK_DEFAULT_DURATION_MINUTES }),
});
export type TemplateDefaults = Static<typeof TemplateDefaults>;

export const TEMPLATE_SCRIPT_MAX = 65536;
export const SlurmTemplateSave = Type.Object({
  name: Type.String({ minLength: 1, maxLength: TASK_NAME_MAX }),
  description: Type.String({ maxLength: 1024, default: '' }),
  /** Application area, e.g. 分子动力学, 通用计算. */
  category: Type.String({ maxLength: 32, default: '' }),
  script: Type.String({ minLength: 1, maxLength: TEMPLATE_SCRIPT_MAX }),
  params: Type.Array(TemplateParam, { maxItems: 30, default: [] }),
  defaults: TemplateDefaults,
});
export type SlurmTemplateSave = Static<typeof SlurmTemplateSave>;

export const SlurmTemplate = Type.Composite([
  SlurmTemplateSave,
  Type.Object({
    id: Id,
    /** `platform` templates come from config and are read-only; `user` ones belong to the caller. */
    source: Type.Union([Type.Literal('platform'), Type.Literal('user')]),
    createTime: Millis,
    updateTime: Millis,
  }),
]);
export type SlurmTemplate = Static<typeof SlurmTemplate>;

export const TemplatePageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    keyword: Type.Optional(Type.String({ maxLength: TASK_NAME_MAX })),
    category: Type.Optional(Type.String({ maxLength: 32 })),
    source: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('user')])),
  }),
]);
export type TemplatePageQuery = Static<typeof TemplatePageQuery>;

export const SlurmTaskCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: TASK_NAME_MAX }),
  type: SlurmTaskType,
  /** `template`: the template and its parameter values. */
  templateId: Type.Optional(Id),
  params: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 1024 }), Type.Number()]))),
  /** `custom`: the sbatch script itself. */
  script: Type.Optional(Type.String({ minLength: 1, maxLength: TEMPLATE_SCRIPT_MAX })),
  subCenterId: Id,
  cardTypeId: Id,
  /** Cards per node (0 on a CPU partition … or for a CPU-only run). */
  cardNum: Type.Integer({ minimum: 0, maximum: 64 }),
  nodeNum: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  /** Absent: the task's own folder `taskFolder(name, id)`, made for it. */
  workDir: Type.Optional(TaskPath),
  env: Type.Array(EnvVar, { maxItems: TASK_ENV_MAX, default: [] }),
  maxDurationMinutes: Type.Integer({ minimum: 1, maximum: TASK_MAX_DURATION_MINUTES, default: TASK_DEFAULT_DURATION_MINUTES }),
  clientRequestId: Type.Optional(ClientRequestId),
  /** 付费方: a team the caller belongs to pays (ADR 0017); absent: the caller. */
  payerTeamId: Type.Optional(Id),
});
export type SlurmTaskCreate = Static<typeof SlurmTaskCreate>;

/** 保存为模板 (`POST /tasks/{id}/save-as-template`): the new template's name (default: the task's), description, category. */
export const SlurmTemplateFromTask = Type.Object({
  name: Type.Optional(Type.String({ maxLength: TASK_NAME_MAX })),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  category: Type.Optional(Type.String({ maxLength: 32 })),
});
export type SlurmTemplateFromTask = Static<typeof SlurmTemplateFromTask>;
