import { JobRefused, type AccountedJob, type JobUsage } from '../executor';
import { latestRuns, v0038AccountedJob, v0038AccountingJob } from './v0038-accounting';
import { baseState, secs } from './v0038-values';

/**
 * Every slurmrestd version-specific path and shape lives behind `Adapter`: the executor (slurm-executor.ts)
 * speaks only the neutral types below. v0.0.38 (Slurm 22.05, openapi/v0.0.38 + openapi/dbv0.0.38) is the
 * one implementation; production sites on 23.02+ need a v0.0.40+ adapter (differences listed in
 * docs/operations/slurm-center.md: `environment` as a "K=V" array, `tres_per_node` instead of `gres`,
 * states as flag arrays, numbers as `{set, number}`…) plugged in by `adapterFor`.
 */

/** One HTTP round trip as an account (the executor adds the account's token, the timeout and JSON). */
export type SlurmCall = (account: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => Promise<SlurmReply>;

export interface SlurmReply {
  status: number;
  /** Parsed JSON body (`null` when empty). */
  body: any;
}

/** What the executor asks Slurm to run, version-neutral. */
export interface SlurmJobRequest {
  script: string;
  name: string;
  comment: string;
  /** Slurm account (association). */
  account: string;
  partition: string;
  /** gres per node `name:type:count` (absent: no cards). */
  gres?: string;
  nodes: number;
  /** Total tasks (processes). */
  tasks: number;
  tasksPerNode?: number;
  cpusPerTask?: number;
  memoryPerNodeMB?: number;
  memoryPerCpuMB?: number;
  constraints?: string;
  qos?: string;
  exclusive?: boolean;
  timeLimitMinutes: number;
  workDir: string;
  /** stdout and stderr both go here. */
  outputPath: string;
  environment: Record<string, string>;
}

/** One job as the controller or accounting sees it, version-neutral. */
export interface SlurmJob {
  jobId: string;
  name: string;
  /** `null`: not known (accounting stores the comment only once the job ended). */
  comment: string | null;
  user: string;
  cluster: string;
  partition: string;
  /** Base state name: `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `TIMEOUT`, … */
  state: string;
  /** Slurm's reason code (`Resources`, `Priority`, `NonZeroExitCode`, …); `''` for none. */
  reason: string;
  /** Exit code of the batch script; `null` when the source cannot tell (see `v0038AccountingJob`). */
  exitCode: number | null;
  /** Signal that ended it (0 = none; `null` unknown). */
  signal: number | null;
  /** Unix seconds; `null` when unset (0). For a PENDING controller job `startTime` is the backfill estimate. */
  submitTime: number | null;
  startTime: number | null;
  endTime: number | null;
  /** Hostlist expression (`node[1-2]`), `''` before placement. */
  nodes: string;
  /** gres per node as requested, `name:type:count` (`''` for none). */
  gresPerNode: string;
  from: 'controller' | 'accounting';
  /** Who asked for the cancel (accounting's kill_request_user, sacct's `CANCELLED by <uid>`); absent when unknown. */
  cancelledBy?: string;
  /** What the job used (accounting only, once its steps are recorded: sacct's MaxRSS, TotalCPU, AllocCPUS, ReqMem). */
  usage?: JobUsage;
}

export interface SlurmGres {
  name: string;
  /** `''` when the gres has no type. */
  type: string;
  count: number;
}

export interface SlurmNode {
  name: string;
  /** NodeAddr: where the node is reached (slurm.conf's NodeAddr, else its name). */
  address: string;
  partitions: string[];
  cpus: number;
  realMemoryMB: number;
  gres: SlurmGres[];
  gresUsed: SlurmGres[];
  /** Lower-case base state (`idle`, `mixed`, `allocated`, `down`, `drained`, …). */
  state: string;
  /** Takes new jobs (not down, drained, failing or in maintenance). */
  usable: boolean;
}

export interface Adapter {
  readonly version: string;
  /** Submits; returns the job id. Throws `JobRefused` (Slurm's words) for a permanent refusal, else Error. */
  submit(call: SlurmCall, user: string, job: SlurmJobRequest): Promise<string>;
  /** All jobs slurmctld holds (one call). */
  controllerJobs(call: SlurmCall, user: string): Promise<SlurmJob[]>;
  /** Jobs in accounting by id or by name (one call). */
  accountingJobs(call: SlurmCall, user: string, filter: { cluster: string; jobIds?: string[]; names?: string[] }): Promise<SlurmJob[]>;
  /** Every job of the cluster queued, running or ended in the last `seconds` (sacct -S now-<seconds>), one call. */
  accountingSince(call: SlurmCall, user: string, filter: { cluster: string; seconds: number }): Promise<AccountedJob[]>;
  /** Cancels (not a signal); a job that is already gone or done is not an error. */
  cancel(call: SlurmCall, user: string, jobId: string): Promise<void>;
  nodes(call: SlurmCall, user: string): Promise<SlurmNode[]>;
}

// ---- v0.0.38 ------------------------------------------------------------------------------------------

const CTLD = '/slurm/v0.0.38';
const DB = '/slurmdb/v0.0.38';

/** ESLURM_* codes (slurm_errno.h) that say "try again", not "never". */
const TRANSIENT_SLURM_ERRORS = new Set([
  2007, // ESLURM_ERROR_ON_DESC_TO_RECORD_COPY "Unable to create job record, try again"
  2015, // ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE "… not available now"
  2016, // ESLURM_NODES_BUSY
  2019, // ESLURM_WRITING_TO_FILE
  2020, // ESLURM_TRANSITION_STATE_NO_UPDATE "try again later"
  2027, // ESLURM_IN_STANDBY_MODE
]);

interface V38Error {
  error?: string;
  error_code?: number;
  error_number?: number;
  description?: string;
  source?: string;
}

/** Slurm's own words for a failed reply (`errors[]`), for messages and refusals. */
export function v0038ErrorText(reply: SlurmReply): string {
  const errors = (reply.body?.errors ?? []) as V38Error[];
  if (!errors.length) return `HTTP ${reply.status}`;
  return errors.map((e) => [e.error, e.description && e.description !== e.error ? e.description : ''].filter(Boolean).join(': ')).join('; ');
}

function errorCodes(reply: SlurmReply): number[] {
  return ((reply.body?.errors ?? []) as V38Error[]).map((e) => Number(e.error_code ?? e.error_number ?? -1));
}

/**
 * A submit reply that is a permanent refusal: slurmctld validated the request and said no (ESLURM_* 2000–2999:
 * no such partition 2000, request larger than any node 2014, no association 2045…). An authentication
 * failure (a bad token reads as `error_number: -1`, HTTP 500) and communication errors are not refusals.
 */
export function v0038IsRefusal(reply: SlurmReply): boolean {
  const codes = errorCodes(reply);
  return codes.some((c) => c >= 2000 && c < 3000 && !TRANSIENT_SLURM_ERRORS.has(c));
}

export function v0038SubmitBody(job: SlurmJobRequest): unknown {
  const j: Record<string, unknown> = {
    name: job.name,
    comment: job.comment,
    account: job.account,
    partition: job.partition,
    // v0.0.38: [min, max] nodes.
    nodes: [job.nodes, job.nodes],
    tasks: job.tasks,
    time_limit: job.timeLimitMinutes,
    current_working_directory: job.workDir,
    standard_output: job.outputPath,
    // Required, and an object in v0.0.38 (v0.0.40+: an array of "K=V").
    environment: job.environment,
  };
  if (job.gres) j.gres = job.gres; // v0.0.40+: tres_per_node "gres/<gres>"
  if (job.tasksPerNode) j.tasks_per_node = job.tasksPerNode;
  if (job.cpusPerTask) j.cpus_per_task = job.cpusPerTask;
  if (job.memoryPerNodeMB) j.memory_per_node = job.memoryPerNodeMB;
  else if (job.memoryPerCpuMB) j.memory_per_cpu = job.memoryPerCpuMB;
  if (job.constraints) j.constraints = job.constraints;
  if (job.qos) j.qos = job.qos;
  if (job.exclusive) j.exclusive = 'exclusive';
  return { script: job.script, job: j };
}

/** A `/slurm/v0.0.38/jobs` entry. `exit_code` is the raw wait status (`exit 3` → 768, SIGTERM → 15). */
export function v0038ControllerJob(j: any): SlurmJob {
  const raw = typeof j.exit_code === 'number' ? j.exit_code : null;
  return {
    jobId: String(j.job_id),
    name: String(j.name ?? ''),
    comment: j.comment ?? null,
    user: String(j.user_name ?? ''),
    cluster: String(j.cluster ?? ''),
    partition: String(j.partition ?? ''),
    state: baseState(j.job_state),
    reason: j.state_reason && j.state_reason !== 'None' ? String(j.state_reason) : '',
    exitCode: raw === null ? null : (raw >> 8) & 0xff,
    signal: raw === null ? null : raw & 0x7f,
    submitTime: secs(j.submit_time),
    startTime: secs(j.start_time),
    endTime: secs(j.end_time),
    nodes: String(j.nodes ?? ''),
    gresPerNode: String(j.tres_per_node ?? '').replace(/^gres:/, ''),
    from: 'controller',
  };
}


/** `gpu:a100:2(S:0-1),gpu:t4:1` / `gpu:a100:1(IDX:0)` → entries (`N/A`, `(null)` → none). */
export function parseGres(s: unknown): SlurmGres[] {
  const out: SlurmGres[] = [];
  for (const part of String(s ?? '').split(/,(?![^(]*\))/)) {
    const spec = part.replace(/\(.*\)$/, '').trim();
    if (!spec || spec === 'N/A' || spec === '(null)') continue;
    const bits = spec.split(':');
    const last = bits[bits.length - 1];
    const count = /^\d+$/.test(last) ? Number(last) : 1;
    const nameType = /^\d+$/.test(last) ? bits.slice(0, -1) : bits;
    out.push({ name: nameType[0], type: nameType.slice(1).join(':'), count });
  }
  return out;
}

const UNUSABLE = /down|drain|fail|maint|future|power|reboot|unknown|not_responding|inval/i;

export function v0038Node(n: any): SlurmNode {
  const state = String(n.state ?? '').toLowerCase();
  const flags = ((n.state_flags ?? []) as string[]).join(' ');
  return {
    name: String(n.name),
    address: String(n.address || n.name),
    partitions: (n.partitions ?? []) as string[],
    cpus: Number(n.cpus ?? 0),
    realMemoryMB: Number(n.real_memory ?? 0),
    gres: parseGres(n.gres),
    gresUsed: parseGres(n.gres_used),
    state,
    usable: !UNUSABLE.test(`${state} ${flags}`),
  };
}

function check(reply: SlurmReply, what: string): any {
  if (reply.status !== 200 || (reply.body?.errors ?? []).length) throw new Error(`slurmrestd ${what}: ${v0038ErrorText(reply)}`);
  return reply.body;
}

export const v0038: Adapter = {
  version: 'v0.0.38',

  async submit(call, user, job) {
    const reply = await call(user, 'POST', `${CTLD}/job/submit`, v0038SubmitBody(job));
    if (reply.status === 200 && reply.body?.job_id != null && !(reply.body.errors ?? []).length) return String(reply.body.job_id);
    // Refusals come back as HTTP 500 with an ESLURM code (docs/operations/slurm-center.md, "Submit").
    if (v0038IsRefusal(reply)) throw new JobRefused(v0038ErrorText(reply));
    throw new Error(`slurmrestd submit: ${v0038ErrorText(reply)}`);
  },

  async controllerJobs(call, user) {
    const body = check(await call(user, 'GET', `${CTLD}/jobs`), 'jobs');
    return ((body.jobs ?? []) as any[]).map(v0038ControllerJob);
  },

  async accountingJobs(call, user, filter) {
    const q = new URLSearchParams({ cluster: filter.cluster });
    // `step` takes job ids (sacct -j); commas must be encoded ("Unable to parse query" otherwise).
    if (filter.jobIds?.length) q.set('step', filter.jobIds.join(','));
    if (filter.names?.length) q.set('job_name', filter.names.join(','));
    const reply = await call(user, 'GET', `${DB}/jobs?${q}`);
    // No match is an error in dbv0.0.38: 9003 "Nothing found with query".
    const codes = errorCodes(reply);
    if (codes.length && codes.every((c) => c === 9003)) return [];
    const body = check(reply, 'accounting jobs');
    return ((body.jobs ?? []) as any[]).map(v0038AccountingJob);
  },

  async accountingSince(call, user, filter) {
    // start_time alone is sacct's -S: jobs eligible, running or ending at or after it (running ones included).
    // Relative to slurmdbd's clock (`now-<n>seconds`): an absolute time would be read in slurmrestd's time
    // zone, which the gateway does not know; the caller's margin covers the clocks' difference.
    const q = new URLSearchParams({ cluster: filter.cluster, start_time: `now-${Math.max(1, Math.ceil(filter.seconds))}seconds` });
    const reply = await call(user, 'GET', `${DB}/jobs?${q}`);
    const codes = errorCodes(reply);
    if (codes.length && codes.every((c) => c === 9003)) return [];
    const body = check(reply, 'accounting jobs');
    return latestRuns(((body.jobs ?? []) as any[]).map(v0038AccountedJob));
  },

  async cancel(call, user, jobId) {
    const reply = await call(user, 'DELETE', `${CTLD}/job/${encodeURIComponent(jobId)}`);
    if (reply.status === 200 && !(reply.body?.errors ?? []).length) return;
    // Unknown (2017: purged long ago) or already done (2021): nothing left to cancel.
    if (errorCodes(reply).some((c) => c === 2017 || c === 2021)) return;
    throw new Error(`slurmrestd cancel ${jobId}: ${v0038ErrorText(reply)}`);
  },

  async nodes(call, user) {
    const body = check(await call(user, 'GET', `${CTLD}/nodes`), 'nodes');
    return ((body.nodes ?? []) as any[]).map(v0038Node);
  },
};

/** The adapter for a center's `scheduler.apiVersion`. */
export function adapterFor(apiVersion: string): Adapter {
  if (apiVersion === 'v0.0.38') return v0038;
  throw new Error(`no slurmrestd adapter for ${apiVersion} (supported: v0.0.38)`);
}
