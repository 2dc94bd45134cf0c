import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { JobSpec, JobStatus, JobUsage } from '../executor';
import { readOr } from './host';
import type { Alloc } from './inventory';

/**
 * The local executor's state directory (`<dataDir>/executor/<centerId>`): everything it knows, so a restarted
 * gateway re-attaches to its jobs and a job that ended while the gateway was down settles with its true exit
 * code.
 *
 *     last-id                  last job number issued (ids are `local-<n>`, monotonic per center)
 *     supervise.sh             the supervisor every job runs under (written at start-up, job-script.ts)
 *     jobs/<jobId>/
 *       spec.json              {seq, submitTime, spec}: the job exists once this file does
 *       script.sh              the spec's script, as given
 *       job.sh                 generated launcher: cd workDir, environment, one batch run or N workers
 *       start                  {time, alloc, nodes, masterPort}: written just before the supervisor starts
 *       supervisor             pid of `bash supervise.sh <jobDir> <outputPath>` (own session)
 *       pid                    the job's process group id (written by the supervisor)
 *       exit                   `<code> <endEpochMs>`, written by the supervisor (temp + mv) when the job ends
 *       cancel | timeout       epoch ms a stop was asked (user cancel / time limit): the end's reason
 *       limits                 {memMB?, cpus}: the job's memory limit (its script's #SBATCH --mem) and CPUs
 *       mem-limit              the memory limit in MiB, for the supervisor (absent: none)
 *       peak-rss               peak resident memory of the job's session, KiB (the supervisor's samples)
 *       oom                    epoch ms the supervisor killed the job for going over mem-limit
 *       cpu                    bash `times` of the supervisor: its second line is the job's CPU time (`<user> <sys>`)
 */

export interface StartRecord {
  time: number;
  alloc: Alloc[];
  nodes: string[];
  masterPort: number;
}

/** A job as the executor holds it: what its directory records, and this process's handle on it. */
export interface LocalJob {
  id: string;
  seq: number;
  dir: string;
  spec: JobSpec;
  phase: 'queued' | 'starting' | 'running' | 'ended';
  start?: StartRecord;
  /** The supervisor, when this instance started it. */
  child?: ChildProcess;
  stop?: { kind: 'cancel' | 'timeout'; at: number };
  termSent?: boolean;
  final?: JobStatus;
}

/**
 * A job as its directory records it, when an executor starts: running once its supervisor was launched (the
 * caller settles it if it ended meanwhile), ended when it was stopped before it started, else queued — also
 * when the gateway died between writing `start` and launching the supervisor. Undefined without spec.json.
 */
export function readJob(dir: string, id: string, clock: () => number): LocalJob | undefined {
  const raw = readOr(path.join(dir, 'spec.json'));
  if (!raw) return undefined;
  const { seq, spec } = JSON.parse(raw) as { seq: number; spec: JobSpec };
  const job: LocalJob = { id, seq, dir, spec, phase: 'queued' };
  for (const kind of ['timeout', 'cancel'] as const) {
    const at = readOr(path.join(dir, kind));
    if (at !== undefined && !job.stop) job.stop = { kind, at: Number(at) || clock() };
  }
  const start = readOr(path.join(dir, 'start'));
  const launched = ['supervisor', 'pid', 'exit'].some((f) => fs.existsSync(path.join(dir, f)));
  if (start && launched) {
    job.start = JSON.parse(start) as StartRecord;
    job.phase = 'running';
  } else if (start) {
    // The gateway died between writing `start` and starting the supervisor: nothing ran, queue it again.
    fs.rmSync(path.join(dir, 'start'), { force: true });
  }
  if (job.phase === 'queued' && job.stop) {
    job.phase = 'ended';
    job.final = { jobId: id, phase: 'STOPPED', reason: 'Cancelled', exitCode: null, startTime: null, endTime: job.stop.at };
  }
  return job;
}

/**
 * How a started job ended: its exit file (`<code> <endEpochMs>`) read with why it was stopped, if it was.
 * Without one — supervisor and job gone (host reboot, supervisor killed) — the end is unknown: NodeFail.
 */
export function endStatus(job: LocalJob, exit: string | undefined, now: number): JobStatus {
  const base = { jobId: job.id, startTime: job.start?.time ?? null, nodes: job.start?.nodes, usage: readUsage(job.dir) };
  if (exit === undefined) return { ...base, phase: 'FAILED', reason: 'NodeFail', exitCode: null, endTime: now };
  const [codeText, endText] = exit.trim().split(/\s+/);
  const exitCode = Number(codeText);
  const endTime = Number(endText) || now;
  // bash's 128 + n: the job's leader was ended by signal n.
  const signal = exitCode > 128 && exitCode < 128 + 65 ? exitCode - 128 : null;
  if (job.stop?.kind === 'cancel') return { ...base, phase: 'STOPPED', reason: 'Cancelled', exitCode, signal, endTime };
  if (fs.existsSync(path.join(job.dir, 'oom'))) return { ...base, phase: 'FAILED', reason: 'OutOfMemory', exitCode, signal, endTime };
  if (job.stop?.kind === 'timeout') return { ...base, phase: 'FAILED', reason: 'TimeLimit', exitCode, signal, endTime };
  if (exitCode === 0) return { ...base, phase: 'SUCCEEDED', exitCode, endTime };
  return { ...base, phase: 'FAILED', reason: 'NonZeroExitCode', exitCode, signal, endTime };
}

/** The limits the job was started with and what its supervisor measured (files above); missing parts are left out. */
export function readUsage(dir: string): JobUsage | undefined {
  const usage: JobUsage = {};
  const limits = readOr(path.join(dir, 'limits'));
  if (limits) {
    const l = JSON.parse(limits) as { memMB?: number; cpus?: number };
    if (l.memMB) usage.requestedMemMB = l.memMB;
    if (l.cpus) usage.cpus = l.cpus;
  }
  const peak = Number(readOr(path.join(dir, 'peak-rss')));
  if (peak > 0) usage.maxRssMB = Math.round(peak / 1024);
  const cpu = readOr(path.join(dir, 'cpu'))?.trim().split('\n')[1];
  if (cpu) {
    const secs = [...cpu.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
    usage.cpuSeconds = Math.round(secs * 100) / 100;
  }
  return Object.keys(usage).length ? usage : undefined;
}
