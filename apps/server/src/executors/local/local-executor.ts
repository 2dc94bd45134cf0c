import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { CenterCardType, CenterConfig } from '../../centers/centers';
import { JobRefused, type CardCapacity, type Executor, type JobAccount, type JobRef, type JobSpec, type JobStatus } from '../executor';
import { cmdlineHas, freePort, readOr, signal, writeAtomic } from './host';
import { fit, usage, type Alloc } from './inventory';
import { endStatus, readJob, type LocalJob } from './job-dir';
import { jobLimits, jobScript, SUPERVISOR } from './job-script';

/**
 * The embedded default executor (`scheduler.kind: local`): jobs run as process groups on this host against a
 * simulated card inventory of the center's card types (nodes × cardsPerNode cards each). A job waits in a
 * FIFO queue per card type until `nodes` simulated nodes each have `cardsPerNode` free cards (reasons
 * `Resources` for the head of the queue, `Priority` behind it); it then sees only its cards through the
 * vendor's visible-device variable (NVIDIA CUDA_VISIBLE_DEVICES, Huawei ASCEND_RT_VISIBLE_DEVICES, Hygon
 * HIP_VISIBLE_DEVICES).
 *
 * Single-tenant: every job runs as the gateway's own service user (its HOME is the account's home, but the
 * uid is the gateway's). Running jobs under the account's POSIX uid (through the file service's privileged
 * launcher) is a documented gap (docs/plan/9.md). One executor instance per state directory at a time.
 *
 * Everything it knows lives in its state directory (`<dataDir>/executor/<centerId>`, job-dir.ts), so a
 * restarted gateway re-attaches to its jobs and a job that ended while the gateway was down settles with its
 * true exit code. How a job runs under its supervisor, in its own process group: job-script.ts.
 *
 * Requires bash ≥ 5.1 (`wait -n -p`), setsid(1) and /proc (the re-attach check reads /proc/<pid>/cmdline).
 */
export interface LocalExecutorOptions {
  /** Where the executor keeps its files (see above); created if missing. */
  stateDir: string;
  /** Epoch ms for start times, deadlines and stop times. Default Date.now. */
  clock?: () => number;
  /** How often running jobs are checked for their end, time limit and kill escalation. Default 1000. */
  pollMs?: number;
  /** From SIGTERM to SIGKILL when a job is cancelled or over its time limit. Default 10 000. */
  killGraceMs?: number;
  /** Length of a minute of `timeLimitMinutes` (tests shorten it). Default 60 000. */
  minuteMs?: number;
  /** Unexpected errors of background work (the scheduling pass); default: printed to stderr. */
  onError?: (err: unknown) => void;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class LocalExecutor implements Executor {
  readonly kind = 'local' as const;
  private readonly stateDir: string;
  private readonly jobsDir: string;
  private readonly clock: () => number;
  private readonly killGraceMs: number;
  private readonly minuteMs: number;
  private readonly onError: (err: unknown) => void;
  private readonly types: Map<string, CenterCardType>;
  private readonly jobs = new Map<string, LocalJob>();
  private readonly byTask = new Map<string, string>();
  private lastId = 0;
  private lastSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly center: CenterConfig,
    opts: LocalExecutorOptions,
  ) {
    this.stateDir = path.resolve(opts.stateDir);
    this.jobsDir = path.join(this.stateDir, 'jobs');
    this.clock = opts.clock ?? Date.now;
    this.killGraceMs = opts.killGraceMs ?? 10_000;
    this.minuteMs = opts.minuteMs ?? 60_000;
    this.onError = opts.onError ?? ((err) => console.error(`local executor ${center.id}:`, err));
    this.types = new Map(center.cardTypes.map((t) => [t.id, t]));
    fs.mkdirSync(this.jobsDir, { recursive: true, mode: 0o700 });
    writeAtomic(path.join(this.stateDir, 'supervise.sh'), SUPERVISOR);
    this.load();
    this.timer = setInterval(() => this.tick(), opts.pollMs ?? 1000);
    this.timer.unref();
    void this.schedule();
  }

  // ---- the Executor calls -------------------------------------------------------------------------------

  /** Idempotent by task id; the lookup is a map read here, so the engine's attempt number is not needed. */
  async submit(spec: JobSpec, _attempt?: number): Promise<{ jobId: string }> {
    if (this.closed) throw new Error('local executor is closed');
    const existing = this.byTask.get(spec.taskId);
    if (existing) return { jobId: existing };
    this.validate(spec);
    // Everything up to the schedule is synchronous, so two submits of one task cannot both get here.
    const n = ++this.lastId;
    writeAtomic(path.join(this.stateDir, 'last-id'), String(n));
    const id = `local-${n}`;
    const dir = path.join(this.jobsDir, id);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'script.sh'), spec.script, { mode: 0o700 });
    const seq = ++this.lastSeq;
    writeAtomic(path.join(dir, 'spec.json'), JSON.stringify({ seq, submitTime: this.clock(), spec }));
    const job: LocalJob = { id, seq, dir, spec, phase: 'queued' };
    this.jobs.set(id, job);
    this.byTask.set(spec.taskId, id);
    await this.schedule();
    return { jobId: id };
  }

  async find(taskId: string, _account?: JobAccount): Promise<string | undefined> {
    return this.byTask.get(taskId);
  }

  async cancel(ref: JobRef): Promise<void> {
    const job = this.own(ref);
    if (!job) return;
    this.refresh();
    if (job.phase === 'ended') return;
    const now = this.clock();
    if (!job.stop) {
      job.stop = { kind: 'cancel', at: now };
      writeAtomic(path.join(job.dir, 'cancel'), String(now));
    }
    if (job.phase === 'queued') {
      job.phase = 'ended';
      job.final = { jobId: job.id, phase: 'STOPPED', reason: 'Cancelled', exitCode: null, startTime: null, endTime: now };
      await this.schedule(); // the jobs behind it may move up
      return;
    }
    // starting: startJob sees the stop before it launches anything. running: signal now; the tick escalates.
    if (job.phase === 'running') this.enforce(job, now);
  }

  async states(refs: readonly JobRef[]): Promise<Map<string, JobStatus>> {
    this.refresh();
    await this.schedule();
    const out = new Map<string, JobStatus>();
    for (const ref of refs) {
      const job = this.own(ref);
      if (job) out.set(job.id, this.statusOf(job));
    }
    return out;
  }

  async capacity(): Promise<CardCapacity[]> {
    this.refresh();
    return this.center.cardTypes.map((t) => {
      const used = this.usage(t);
      return {
        cardTypeId: t.id,
        total: t.nodes * t.cardsPerNode,
        allocated: used.reduce((s, u) => s + u.size, 0),
        queued: this.queue(t.id).length,
        nodesTotal: t.nodes,
        nodesIdle: used.filter((u) => u.size === 0).length,
      };
    });
  }

  /** Stops the timer and the child watchers; running jobs keep running and a new instance re-attaches. */
  /**
   * Nothing to limit: the local executor's jobs come only through the console, whose gate refuses a submit
   * without compute power and whose metering stops running tasks when it runs out (no outside route, issue 25).
   */
  async limitAccount(): Promise<boolean> {
    return false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.chain;
    for (const job of this.jobs.values()) job.child?.removeAllListeners('exit');
  }

  // ---- state on disk --------------------------------------------------------------------------------------

  private load() {
    this.lastId = Number(readOr(path.join(this.stateDir, 'last-id'))?.trim() || 0) || 0;
    for (const id of fs.readdirSync(this.jobsDir)) {
      const job = readJob(path.join(this.jobsDir, id), id, this.clock);
      if (!job) continue;
      this.jobs.set(id, job);
      this.byTask.set(job.spec.taskId, id);
      this.lastSeq = Math.max(this.lastSeq, job.seq);
      this.lastId = Math.max(this.lastId, Number(/^local-(\d+)$/.exec(id)?.[1] ?? 0));
      if (job.phase === 'running') this.settleIfEnded(job);
    }
  }

  /** Settles every running job that has ended (exit file, or nothing of it alive). Synchronous, no spawning. */
  private refresh(): boolean {
    let changed = false;
    for (const job of this.jobs.values()) if (job.phase === 'running' && this.settleIfEnded(job)) changed = true;
    return changed;
  }

  private settleIfEnded(job: LocalJob): boolean {
    let exit = readOr(path.join(job.dir, 'exit'));
    if (exit === undefined) {
      if (this.alive(job)) return false;
      exit = readOr(path.join(job.dir, 'exit')); // it may have been written between the two looks
    }
    job.child?.removeAllListeners('exit');
    job.child = undefined;
    job.phase = 'ended';
    job.final = endStatus(job, exit, this.clock());
    return true;
  }

  /** Whether any part of a started job still runs: its supervisor (checked to be ours) or its process group. */
  private alive(job: LocalJob): boolean {
    if (job.child && job.child.exitCode === null && job.child.signalCode === null && job.child.pid) return true;
    const sup = Number(readOr(path.join(job.dir, 'supervisor')));
    if (sup && cmdlineHas(sup, job.dir)) return true;
    const pgid = Number(readOr(path.join(job.dir, 'pid')));
    return pgid > 0 && signal(-pgid, 0);
  }

  // ---- timers ---------------------------------------------------------------------------------------------

  private tick() {
    if (this.closed) return;
    try {
      const changed = this.refresh();
      const now = this.clock();
      for (const job of this.jobs.values()) if (job.phase === 'running') this.enforce(job, now);
      if (changed || this.hasQueued()) void this.schedule();
    } catch (err) {
      this.onError(err);
    }
  }

  /** Time limit and stop escalation of one running job: SIGTERM to its group, SIGKILL after the grace period. */
  private enforce(job: LocalJob, now: number) {
    const limit = job.spec.timeLimitMinutes;
    if (!job.stop && limit > 0 && job.start && now >= job.start.time + limit * this.minuteMs) {
      job.stop = { kind: 'timeout', at: now };
      writeAtomic(path.join(job.dir, 'timeout'), String(now));
    }
    if (!job.stop) return;
    const pgid = Number(readOr(path.join(job.dir, 'pid')));
    if (!(pgid > 0)) return; // the supervisor has not started the group yet: next tick
    if (!job.termSent) job.termSent = signal(-pgid, 'SIGTERM');
    if (now >= job.stop.at + this.killGraceMs) signal(-pgid, 'SIGKILL');
  }

  // ---- scheduling -----------------------------------------------------------------------------------------

  /** One scheduling pass, serialized with every other. */
  private schedule(): Promise<void> {
    this.chain = this.chain.then(() => this.schedulePass()).catch((err: unknown) => this.onError(err));
    return this.chain;
  }

  private async schedulePass() {
    if (this.closed) return;
    this.refresh();
    for (const type of this.center.cardTypes) {
      for (;;) {
        const head = this.queue(type.id)[0];
        if (!head) break;
        const alloc = this.fit(type, head.spec);
        if (!alloc) break; // strict FIFO: nothing overtakes the head of the queue
        await this.startJob(head, type, alloc);
        if (this.closed) return;
      }
    }
  }

  private hasQueued() {
    for (const job of this.jobs.values()) if (job.phase === 'queued') return true;
    return false;
  }

  private queue(typeId: string): LocalJob[] {
    return [...this.jobs.values()].filter((j) => j.phase === 'queued' && j.spec.cardType.id === typeId).sort((a, b) => a.seq - b.seq);
  }

  /** Cards in use per simulated node of a card type (inventory.ts). */
  private usage(type: CenterCardType): Set<number>[] {
    const held = [...this.jobs.values()].filter((j) => (j.phase === 'running' || j.phase === 'starting') && j.spec.cardType.id === type.id && j.start);
    return usage(type, held.map((j) => j.start!.alloc));
  }

  private fit(type: CenterCardType, spec: JobSpec): Alloc[] | null {
    return fit(type, spec, this.usage(type));
  }

  private async startJob(job: LocalJob, type: CenterCardType, alloc: Alloc[]) {
    const nodes = alloc.map((a) => `${type.id}-${a.node + 1}`);
    // Hold the cards while the port is found (the record is rewritten with the real start time below).
    job.phase = 'starting';
    job.start = { time: this.clock(), alloc, nodes, masterPort: 0 };
    const masterPort = job.spec.launch === 'workers' ? await freePort() : 0;
    if (job.stop) {
      job.phase = 'ended';
      job.final = { jobId: job.id, phase: 'STOPPED', reason: 'Cancelled', exitCode: null, startTime: null, endTime: job.stop.at };
      job.start = undefined;
      return;
    }
    fs.writeFileSync(path.join(job.dir, 'job.sh'), jobScript(job, type, alloc, nodes, masterPort, this.center.imageLauncher), { mode: 0o700 });
    const limits = jobLimits(job.spec, type);
    writeAtomic(path.join(job.dir, 'limits'), JSON.stringify(limits));
    if (limits.memMB) writeAtomic(path.join(job.dir, 'mem-limit'), String(limits.memMB));
    job.start = { time: this.clock(), alloc, nodes, masterPort };
    writeAtomic(path.join(job.dir, 'start'), JSON.stringify(job.start));
    const child = spawn('bash', [path.join(this.stateDir, 'supervise.sh'), job.dir, job.spec.outputPath], {
      cwd: job.dir,
      detached: true,
      stdio: 'ignore',
      // Never the gateway's environment (it holds database URLs and keys): a clean one; job.sh adds the job's.
      env: {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        LANG: process.env.LANG ?? 'C.UTF-8',
        HOME: job.spec.account.home,
        USER: job.spec.account.name,
        LOGNAME: job.spec.account.name,
      },
    });
    child.on('error', (err) => this.onError(err));
    job.phase = 'running';
    if (!child.pid) {
      // bash could not be started: the job ends at once with bash's "not found" code.
      writeAtomic(path.join(job.dir, 'exit'), `127 ${Date.now()}`);
      this.settleIfEnded(job);
      return;
    }
    writeAtomic(path.join(job.dir, 'supervisor'), String(child.pid));
    child.unref();
    job.child = child;
    child.once('exit', () => {
      if (this.closed) return;
      if (this.refresh()) void this.schedule();
    });
  }

  // ---- helpers --------------------------------------------------------------------------------------------

  private validate(spec: JobSpec) {
    const type = this.types.get(spec.cardType.id);
    if (!type) throw new JobRefused('Invalid partition name specified');
    const ints = [spec.nodes, spec.cardsPerNode, spec.tasksPerNode ?? 1];
    if (ints.some((v) => !Number.isInteger(v) || v < 0) || spec.nodes < 1) throw new JobRefused('Invalid job specification');
    if (spec.nodes > type.nodes || spec.cardsPerNode > type.cardsPerNode) throw new JobRefused('Requested node configuration is not available');
    for (const k of Object.keys(spec.env)) if (!ENV_NAME.test(k)) throw new JobRefused(`Invalid environment variable name: ${k}`);
  }

  private own(ref: JobRef): LocalJob | undefined {
    const job = this.jobs.get(ref.jobId);
    return job && job.spec.taskId === ref.taskId ? job : undefined;
  }

  private statusOf(job: LocalJob): JobStatus {
    switch (job.phase) {
      case 'queued': {
        const head = this.queue(job.spec.cardType.id)[0] === job;
        return { jobId: job.id, phase: 'QUEUED', reason: head ? 'Resources' : 'Priority', estimatedStart: null };
      }
      case 'starting':
        return { jobId: job.id, phase: 'STARTING', nodes: job.start?.nodes };
      case 'running':
        // Every simulated node is this host: a job's services (a develop task's IDE) are reached on loopback.
        return { jobId: job.id, phase: 'RUNNING', startTime: job.start?.time ?? null, nodes: job.start?.nodes, host: '127.0.0.1' };
      case 'ended':
        return job.final!;
    }
  }
}
