import type { AccountedJob, JobUsage } from '../executor';
import { expandHostlist } from './hostlist';
import type { SlurmJob } from './v0038';
import { baseState, secs } from './v0038-values';

/**
 * dbv0.0.38 (slurmdbd's REST shapes, Slurm 22.05): a job record as the executor follows a task's job
 * (`v0038AccountingJob`, with what it used) and as issue 25's metering reads every job of the cluster
 * (`v0038AccountedJob`). The requests themselves are the adapter's (v0038.ts).
 */

/**
 * A `/slurmdb/v0.0.38/jobs` entry. Known defect of the 22.05 dbv0.0.3x plugins: a job that exited normally
 * reads `exit_code: {status: "SUCCESS", return_code: 0}` whatever its code (a FAILED `exit 3` and a TIMEOUT
 * too; `derived_exit_code` and the steps' codes share the defect, checked on the harness). So the code is
 * trusted only where it cannot be the defect: 0 for COMPLETED, the signal for SIGNALED, `return_code` for
 * status FAILED; a FAILED/TIMEOUT/… job reading SUCCESS gets `null` (unknown), never a made-up 0.
 */
export function v0038AccountingJob(j: any): SlurmJob {
  const state = baseState(j.state?.current);
  const ec = j.exit_code ?? {};
  let exitCode: number | null = null;
  let signal: number | null = null;
  if (ec.status === 'SIGNALED') {
    signal = Number(ec.signal?.signal_id ?? 0) || null;
    exitCode = null;
  } else if (ec.status === 'FAILED') {
    exitCode = Number(ec.return_code ?? 0) || null;
    signal = 0;
  } else if (ec.status === 'SUCCESS' && state === 'COMPLETED') {
    exitCode = 0;
    signal = 0;
  }
  const t = j.time ?? {};
  const gres = ((j.tres?.allocated ?? j.tres?.requested ?? []) as { type: string; name: string; count: number }[]).find((x) => x.type === 'gres');
  return {
    jobId: String(j.job_id),
    name: String(j.name ?? ''),
    comment: j.comment?.job ?? null,
    user: String(j.user ?? ''),
    cluster: String(j.cluster ?? ''),
    partition: String(j.partition ?? ''),
    state,
    reason: j.state?.reason && j.state.reason !== 'None' ? String(j.state.reason) : '',
    exitCode,
    signal,
    submitTime: secs(t.submission),
    startTime: secs(t.start),
    endTime: secs(t.end),
    nodes: j.nodes && j.nodes !== 'None assigned' ? String(j.nodes) : '',
    gresPerNode: gres ? `${gres.name}:${gres.count}` : '',
    from: 'accounting',
    ...(typeof j.kill_request_user === 'string' && j.kill_request_user ? { cancelledBy: j.kill_request_user } : {}),
    ...usageOf(j),
  };
}

type V38Tres = { type?: string; name?: string | null; count?: number | null };
const tresCount = (list: unknown, type: string): number | undefined => {
  const t = ((Array.isArray(list) ? list : []) as V38Tres[]).find((x) => x.type === type && !x.name);
  return typeof t?.count === 'number' && t.count >= 0 ? t.count : undefined;
};
const seconds = (t: { seconds?: number; microseconds?: number } | undefined) => (t ? Number(t.seconds ?? 0) + Number(t.microseconds ?? 0) / 1e6 : 0);
const MiB = 1024 * 1024;

/**
 * sacct's figures from a dbv0.0.38 job record (recorded in v0038.test.ts): ReqMem is the job's
 * `tres.requested` mem (MiB for the whole job: divided by its nodes, the platform's figure is per node),
 * AllocCPUS its `tres.allocated` cpu, TotalCPU the sum of its steps' `time.total` (the job's own `time.total`
 * stays 0 in 22.05), MaxRSS the largest of its steps' `tres.requested.max` mem (bytes: the peak of the
 * step's largest task, sampled by jobacct_gather; whole MiB, as the contract's Efficiency). A job without steps (never started) has no usage; the
 * memory and CPU requests alone are no usage either — the platform knows those.
 */
function usageOf(j: any): { usage?: JobUsage } {
  const steps = (Array.isArray(j.steps) ? j.steps : []) as any[];
  if (!steps.length) return {};
  const usage: JobUsage = {};
  const nodes = Math.max(1, Number(j.allocation_nodes ?? 1) || 1);
  const reqMem = tresCount(j.tres?.requested, 'mem') ?? tresCount(j.tres?.allocated, 'mem');
  if (reqMem) usage.requestedMemMB = Math.round(reqMem / nodes);
  const cpus = tresCount(j.tres?.allocated, 'cpu') ?? tresCount(j.tres?.requested, 'cpu');
  if (cpus) usage.cpus = cpus;
  usage.cpuSeconds = Math.round(steps.reduce((sum, st) => sum + seconds(st.time?.total), 0) * 1000) / 1000;
  const rss = steps.map((st) => tresCount(st.tres?.requested?.max, 'mem')).filter((x): x is number => x !== undefined);
  if (rss.length) usage.maxRssMB = Math.round(Math.max(...rss) / MiB);
  return { usage };
}

/**
 * A `/slurmdb/v0.0.38/jobs` entry as issue 25's metering needs it: who, when, and how many nodes and cards.
 * Cards are the job's allocated gres TRES (requested while pending); the TRES list names a typed gres twice
 * (`gpu` and `gpu:a100`, same count), so the untyped total is taken, else the largest typed one.
 */
export function v0038AccountedJob(j: any): AccountedJob {
  const t = j.time ?? {};
  const ms = (v: unknown) => (secs(v) === null ? null : (v as number) * 1000);
  const tres = ((j.tres?.allocated?.length ? j.tres.allocated : j.tres?.requested) ?? []) as { type: string; name?: string; count: number }[];
  const gres = tres.filter((x) => x.type === 'gres' && x.name);
  const untyped = gres.find((x) => !String(x.name).includes(':'));
  const typed = gres.filter((x) => String(x.name).includes(':')).sort((a, b) => Number(b.count) - Number(a.count))[0];
  const cards = Number((untyped ?? typed)?.count ?? 0);
  const nodeTres = Number(tres.find((x) => x.type === 'node')?.count ?? 0);
  const hosts = j.nodes && j.nodes !== 'None assigned' ? expandHostlist(String(j.nodes)).length : 0;
  return {
    jobId: String(j.job_id),
    user: String(j.user ?? ''),
    name: String(j.name ?? ''),
    comment: j.comment?.job || null,
    partition: String(j.partition ?? ''),
    state: baseState(j.state?.current),
    submitTime: ms(t.submission),
    startTime: ms(t.start),
    endTime: ms(t.end),
    nodes: Math.max(1, nodeTres || Number(j.allocation_nodes ?? 0) || hosts),
    cards,
    gres: typed ? String(typed.name) : untyped ? String(untyped.name) : '',
  };
}

/** A requeued job has a record per run: the newest (by submission) is the job's current one. */
export function latestRuns(jobs: AccountedJob[]): AccountedJob[] {
  const newest = new Map<string, AccountedJob>();
  for (const j of jobs) {
    const prev = newest.get(j.jobId);
    if (!prev || (j.submitTime ?? 0) >= (prev.submitTime ?? 0)) newest.set(j.jobId, j);
  }
  return [...newest.values()];
}
