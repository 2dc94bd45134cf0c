import type { CenterCardType } from '../centers/centers';

/**
 * The seam between the platform and a center's scheduler (design/architecture.md). One Executor per center;
 * two implementations: `local` (process groups on this host against a simulated card inventory, the
 * embedded default) and `slurm` (slurmrestd + accounting). The state engine (modules/task) is the only
 * caller; it never sees a scheduler-specific shape.
 */

/** The cluster account a job runs as (design/domain.md: never root, never the gateway's user). */
export interface JobAccount {
  /** POSIX user name on the center (`szu0001`). */
  name: string;
  uid: number;
  /** Absolute path of the account's home as the center's nodes see it (its storage). */
  home: string;
}

export interface JobSpec {
  /**
   * The platform's task id. Every job carries it (Slurm: job name + comment) so that a retried submit finds
   * the job a timed-out first attempt created instead of making a second one.
   */
  taskId: string;
  /** Shown in the scheduler's own tools. */
  name: string;
  account: JobAccount;
  /** Absolute, inside the account's home (the caller resolved and confined it). */
  workDir: string;
  /**
   * The bash script the job runs (`#!/bin/bash` first). Training tasks get one generated from the start
   * command; Slurm tasks send the user's rendered sbatch script (its `#SBATCH` lines are honoured, the
   * resources below override them).
   */
  script: string;
  /**
   * `batch`: the script runs once, as the batch script (Slurm tasks). `workers`: it runs once per worker
   * (nodes × tasksPerNode) with MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, NODE_RANK and LOCAL_RANK set
   * (training tasks; a single-card train task is one worker with RANK=0, WORLD_SIZE=1).
   */
  launch: 'batch' | 'workers';
  /** Added to the job's environment (the user's variables, SUANLI_* variables). */
  env: Record<string, string>;
  cardType: CenterCardType;
  /** Cards per node (0 = CPU only). */
  cardsPerNode: number;
  nodes: number;
  /** Processes per node (distributed training: one per card); default 1. */
  tasksPerNode?: number;
  /** Enforced by the scheduler; the job is ended with reason TIMEOUT. */
  timeLimitMinutes: number;
  /** Absolute path of the combined stdout/stderr file (inside the home). */
  outputPath: string;
  /** Image the task chose (recorded; how it is launched is the center's `imageLauncher`). */
  image?: { id: string; uri: string };
  /**
   * Folders the job reads but must never write (mounted dataset and model versions). They belong to the
   * platform and are 0444/0555, which stops a cluster account on Slurm; the local executor, whose jobs run
   * as the gateway's own user, also binds them read-only in a private mount namespace when it may.
   */
  readOnly?: string[];
}

/** What a scheduler says about one job, in the platform's words. */
export type JobPhase = 'QUEUED' | 'STARTING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'STOPPED';

export interface JobStatus {
  jobId: string;
  phase: JobPhase;
  /**
   * Scheduler reason code (Slurm's own words: `Resources`, `Priority`, `TimeLimit`, `NonZeroExitCode`,
   * `OutOfMemory`, `NodeFail`, `Cancelled`…); the state engine turns it into Chinese (pending-reasons.ts).
   */
  reason?: string;
  exitCode?: number | null;
  /** Epoch ms. */
  startTime?: number | null;
  endTime?: number | null;
  /** Scheduler's estimated start while QUEUED. */
  estimatedStart?: number | null;
  /** Hosts the job runs on (first = MASTER_ADDR for distributed jobs). */
  nodes?: string[];
  /**
   * Where the platform reaches the first node of a running job, as the scheduler knows it (Slurm: the node's
   * NodeAddr; local: loopback). The IDE proxy connects there and nowhere else (ADR 0014).
   */
  host?: string;
  /** The signal that ended the job's main process, when the scheduler says (ended jobs; 9 = SIGKILL). */
  signal?: number | null;
  /** What the job used, when it has ended and the scheduler accounts for it (issue 23's evidence). */
  usage?: JobUsage;
}

/**
 * What an ended job used (Slurm: sacct's MaxRSS, ReqMem, TotalCPU, AllocCPUS; local: the supervisor's
 * accounting). Every figure may be missing: the diagnosis and the efficiency report skip what they lack.
 */
export interface JobUsage {
  /** Peak resident memory (Slurm: the largest step's MaxRSS; local: the job's process group), MiB. */
  maxRssMB?: number;
  /** Memory the job was given per node, MiB (unknown for a local job without `#SBATCH --mem`). */
  requestedMemMB?: number;
  /** User + system CPU time of the job, seconds. */
  cpuSeconds?: number;
  /** CPUs allocated to the job. */
  cpus?: number;
}

/** One job to ask about: its id and the task/account it belongs to (tokens are minted per account). */
export interface JobRef {
  jobId: string;
  taskId: string;
  account: JobAccount;
}

export interface CardCapacity {
  cardTypeId: string;
  total: number;
  /** Cards allocated to running jobs right now. */
  allocated: number;
  /** Jobs of the card type waiting for resources. */
  queued: number;
  nodesTotal: number;
  /** Nodes with no card allocated. */
  nodesIdle: number;
}

export interface Executor {
  readonly kind: 'local' | 'slurm';
  /**
   * Starts the job, or finds the one already made for `spec.taskId` (idempotent). `attempt` is the engine's
   * stored attempt number: 1 means no earlier attempt can have reached the scheduler, so the lookup may be
   * skipped (it would cost a listing per submission); from 2 on the executor must look first. A refusal by
   * the scheduler (no such partition, request larger than any node) throws `JobRefused` with the scheduler's
   * words; an unreachable or timed-out scheduler throws anything else, and the caller retries later.
   */
  submit(spec: JobSpec, attempt: number): Promise<{ jobId: string }>;
  /** The job made for a task, if any (the lookup behind idempotent submission). */
  find(taskId: string, account: JobAccount): Promise<string | undefined>;
  /** Asks the scheduler to end the job; the end arrives through `states` as STOPPED. Idempotent. */
  cancel(job: JobRef): Promise<void>;
  /**
   * States of many jobs in one round trip per center (the poller's one call). A job the scheduler no longer
   * knows is settled from accounting; one nobody knows is absent from the map (never guessed as failed).
   */
  states(jobs: readonly JobRef[]): Promise<Map<string, JobStatus>>;
  /** Cards per card type of the center, for placement and the resource pages. */
  capacity(): Promise<CardCapacity[]>;
  /**
   * The balance enforced by the scheduler (issue 25): `open: false` makes the scheduler hold every new card
   * job of the cluster account on this center, by whatever route it was submitted (console, SSH, web shell);
   * `open: true` lifts that. Idempotent; throws when the scheduler could not be told (the caller retries).
   * Returns false when this center cannot enforce a limit at all (the local executor has no route but the
   * console's, whose gate already refuses; a Slurm center without `scheduler.adminUser`).
   */
  limitAccount(account: string, open: boolean): Promise<boolean>;
  /** Stops timers and child watchers (running jobs keep running). */
  close(): Promise<void>;
  /**
   * Every job of the center's accounting that was queued, running or ended at or after `since` (epoch ms),
   * whoever submitted it and by which route (issue 25: jobs submitted over SSH or the web shell are metered
   * too). Only schedulers a user can reach without the platform have it: the local executor has no outside
   * route and leaves it undefined.
   */
  accountedJobs?(since: number): Promise<AccountedJob[]>;
}

/** One job as the center's accounting has it (issue 25), scheduler-neutral. */
export interface AccountedJob {
  jobId: string;
  /** The POSIX user it ran as (a pool account, or someone else on the cluster). */
  user: string;
  name: string;
  /** Slurm's comment (the platform's `suanli:<taskId>` tag); null when accounting does not have it. */
  comment: string | null;
  partition: string;
  /** Base state as the scheduler names it (`PENDING`, `RUNNING`, `COMPLETED`, `CANCELLED`, …). */
  state: string;
  /** Epoch ms; null when unset. */
  submitTime: number | null;
  startTime: number | null;
  endTime: number | null;
  /** Nodes allocated (requested while pending), at least 1. */
  nodes: number;
  /** Cards (gres) allocated over all nodes (0: CPU only). */
  cards: number;
  /** gres name and type of the cards (`gpu:a100`), '' for none. */
  gres: string;
}

/** The scheduler refused the job for good (retrying would not help): the task becomes SUBMIT_FAILED. */
export class JobRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Environment every job gets (both executors), besides the user's variables. */
export function platformEnv(spec: Pick<JobSpec, 'taskId' | 'workDir'>, files: { metrics: string; exit: string }): Record<string, string> {
  return { SUANLI_TASK_ID: spec.taskId, SUANLI_WORK_DIR: spec.workDir, SUANLI_METRICS_FILE: files.metrics, SUANLI_EXIT_FILE: files.exit };
}
