import type { CenterCardType, CenterConfig, SlurmSchedulerConfig } from '../../centers/centers';
import type { AccountedJob, CardCapacity, Executor, JobAccount, JobRef, JobSpec, JobStatus } from '../executor';
import { batchScript } from './batch-script';
import { ENDED, slurmJobStatus, withMemoryKill } from './job-status';
import { parseSbatchOptions } from './sbatch-options';
import { SlurmPool } from './slurm-pool';
import { SlurmTokens } from './slurm-token';
import { adapterFor, type Adapter, type SlurmCall, type SlurmJob, type SlurmJobRequest, type SlurmNode, type SlurmReply } from './v0038';

/**
 * The executor of a real Slurm cluster (docs/operations/slurm-center.md) through slurmrestd. Every request
 * is made as the job's cluster account (`X-SLURM-USER-NAME`, a token per account), never as root; the
 * version-specific shapes are the adapter's (v0038.ts), the job's script is batch-script.ts's, and what is
 * done for the pool of accounts rather than for a task (balance limits, every job in accounting) is
 * slurm-pool.ts's. Job name `suanli-<taskId>` and comment `suanli:<taskId>` tag each job, which is how a
 * retried submit finds the job a timed-out attempt made.
 */

export interface SlurmExecutorOptions {
  /** Time limit of one slurmrestd request (ms); default 15 s. */
  requestTimeoutMs?: number;
  /** How long the partition node sizes used to fit cpu/memory requests are reused (ms); default 5 min. */
  nodeCacheMs?: number;
  /** Epoch ms; tests move it. */
  now?: () => number;
  /**
   * A retry looks for the first attempt's job twice, this far apart, before submitting again (default 5 s):
   * a submit that timed out against a frozen slurmctld is still in the controller's queue and becomes a job
   * moments after it thaws — one lookup right then can miss it and make a second job.
   */
  retrySettleMs?: number;
}

export const jobName = (taskId: string) => `suanli-${taskId}`;
export const jobComment = (taskId: string) => `suanli:${taskId}`;

/** How long a cancelled job's end waits for accounting to name who cancelled it (then it ends without). */
const CANCEL_REQUESTER_WAIT_MS = 30_000;
/** How long an ended job's end waits for accounting's record of what it used (then it ends without). */
const USAGE_WAIT_MS = 15_000;
/** PATH and the login variables a job gets besides the spec's (slurmrestd starts from an empty environment). */
const BASE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Smallest cpus / memory of the usable nodes of a partition (what a one-node request may ask at most). */
interface NodeLimits {
  cpus: number;
  memoryMB: number;
}

export class SlurmExecutor implements Executor {
  readonly kind = 'slurm' as const;
  private readonly cfg: SlurmSchedulerConfig;
  private readonly adapter: Adapter;
  private readonly tokens: SlurmTokens;
  private readonly pool: SlurmPool;
  private readonly timeoutMs: number;
  private readonly retrySettleMs: number;
  private readonly nodeCacheMs: number;
  private readonly now: () => number;
  private readonly closing = new AbortController();
  private nodeCache: { at: number; nodes: SlurmNode[] } | undefined;

  constructor(
    private readonly center: CenterConfig,
    options: SlurmExecutorOptions = {},
  ) {
    if (center.scheduler.kind !== 'slurm') throw new Error(`center ${center.id} is not a Slurm center`);
    this.cfg = center.scheduler;
    this.adapter = adapterFor(this.cfg.apiVersion);
    this.tokens = new SlurmTokens(this.cfg);
    this.timeoutMs = options.requestTimeoutMs ?? 15_000;
    this.nodeCacheMs = options.nodeCacheMs ?? 300_000;
    this.now = options.now ?? Date.now;
    this.retrySettleMs = options.retrySettleMs ?? 5_000;
    this.pool = new SlurmPool(center, this.adapter, this.call, this.now);
  }

  async submit(spec: JobSpec, attempt = 2): Promise<{ jobId: string }> {
    // A first attempt cannot have a job yet (the engine stored the attempt before calling): skip the listing.
    if (attempt > 1) {
      const existing = await this.find(spec.taskId, spec.account);
      if (existing) return { jobId: existing };
      // The controller answers again; give a request it queued while frozen time to become the job.
      await new Promise((r) => setTimeout(r, this.retrySettleMs));
      const late = await this.find(spec.taskId, spec.account);
      if (late) return { jobId: late };
    }
    const jobId = await this.adapter.submit(this.call, spec.account.name, await this.request(spec));
    return { jobId };
  }

  async find(taskId: string, account: JobAccount): Promise<string | undefined> {
    const mine = (j: SlurmJob) => j.name === jobName(taskId) || j.comment === jobComment(taskId);
    // A live job by its tags in the controller (accounting stores the comment only at the end and may learn
    // of a new job late), an ended one in accounting by its name.
    const live = (await this.adapter.controllerJobs(this.call, account.name)).filter(mine);
    if (live.length) return lowest(live);
    const ended = (await this.adapter.accountingJobs(this.call, account.name, { cluster: this.cfg.cluster, names: [jobName(taskId)] })).filter(
      (j) => mine(j) && (!j.cluster || j.cluster === this.cfg.cluster),
    );
    return ended.length ? lowest(ended) : undefined;
  }

  /** Balance limits (issue 25): slurm-pool.ts. */
  limitAccount(account: string, open: boolean): Promise<boolean> {
    return this.pool.limitAccount(account, open);
  }

  async cancel(job: JobRef): Promise<void> {
    await this.adapter.cancel(this.call, job.account.name, job.jobId);
  }

  /**
   * One controller call for every job (any pool account reads the whole list: v0.0.38 with PrivateData
   * unset shows all jobs to every user — see docs/operations/slurm-center.md), then one accounting call for
   * the jobs the controller no longer holds, asked as the first such job's account. A job matches only with
   * its task's tags (a job id reused after a controller reset is not taken for ours); a job neither side
   * knows is left out of the map.
   */
  async states(jobs: readonly JobRef[]): Promise<Map<string, JobStatus>> {
    const out = new Map<string, JobStatus>();
    if (!jobs.length) return out;
    const now = this.now();
    const tagged = (j: SlurmJob, ref: JobRef) => j.name === jobName(ref.taskId) || j.comment === jobComment(ref.taskId);
    const live = new Map((await this.adapter.controllerJobs(this.call, jobs[0].account.name)).map((j) => [j.jobId, j]));
    this.cancelStrays(jobs, live.values());
    const missing: JobRef[] = [];
    // Cancelled jobs the controller still holds: only accounting knows who cancelled them.
    const cancelled: JobRef[] = [];
    // Jobs the controller says ended: only accounting knows what they used (issue 23's evidence).
    const endedLive: JobRef[] = [];
    for (const ref of jobs) {
      const j = live.get(ref.jobId);
      const status = j && tagged(j, ref) ? slurmJobStatus(j, now, ref.account.name) : undefined;
      if (status?.phase === 'STOPPED') cancelled.push(ref);
      else if (status && ENDED.has(status.phase)) endedLive.push(ref);
      if (status) out.set(ref.jobId, status);
      else missing.push(ref);
    }
    const asked = [...missing, ...cancelled, ...endedLive];
    if (asked.length) {
      let ended: SlurmJob[] = [];
      try {
        ended = await this.adapter.accountingJobs(this.call, asked[0].account.name, { cluster: this.cfg.cluster, jobIds: asked.map((r) => r.jobId) });
      } catch (e) {
        // Usage is only evidence: an accounting outage holds such an end for the wait below, never longer.
        if (missing.length || cancelled.length) throw e;
      }
      // The newest record of the id that carries the task's tags (a requeued job has several).
      const record = (ref: JobRef) => ended.filter((e) => e.jobId === ref.jobId && tagged(e, ref)).sort((a, b) => (b.submitTime ?? 0) - (a.submitTime ?? 0))[0];
      for (const ref of missing) {
        const j = record(ref);
        const status = j ? slurmJobStatus(j, now, ref.account.name) : undefined;
        if (status) out.set(ref.jobId, withMemoryKill(status));
      }
      for (const ref of cancelled) {
        const j = record(ref);
        const status = j?.state === 'CANCELLED' ? slurmJobStatus(j, now, ref.account.name) : undefined;
        if (status?.reason && status.reason !== 'Cancelled') out.set(ref.jobId, { ...out.get(ref.jobId)!, reason: status.reason, ...(status.usage ? { usage: status.usage } : {}) });
        // slurmdbd learns of the end a moment after the controller: a fresh cancel waits a poll or two for
        // the requester instead of ending without it (the controller keeps the job for minutes).
        else if (now - (out.get(ref.jobId)!.endTime ?? 0) < CANCEL_REQUESTER_WAIT_MS) out.delete(ref.jobId);
      }
      for (const ref of endedLive) {
        const j = record(ref);
        const mine = out.get(ref.jobId)!;
        const status = j ? slurmJobStatus(j, now, ref.account.name) : undefined;
        // Accounting has the end (and so every step, recorded before it): its figures join the controller's.
        if (status && ENDED.has(status.phase)) out.set(ref.jobId, withMemoryKill(status.usage ? { ...mine, usage: status.usage } : mine));
        // Not yet: the end waits a poll or two for them, as a cancel waits for its requester.
        else if (now - (mine.endTime ?? 0) < USAGE_WAIT_MS) out.delete(ref.jobId);
      }
    }
    await this.addHosts(out, jobs[0].account.name);
    return out;
  }

  /**
   * A running job's `host`: the NodeAddr of its first node, from the node list (cached; read again when a job
   * runs on a node the cache does not know). Unknown stays unset — the IDE proxy then waits, it never guesses.
   */
  private async addHosts(statuses: Map<string, JobStatus>, account: string): Promise<void> {
    const running = [...statuses.values()].filter((s) => s.phase === 'RUNNING' && s.nodes?.length);
    if (!running.length) return;
    const find = (name: string) => this.nodeCache?.nodes.find((n) => n.name === name);
    if (running.some((s) => !find(s.nodes![0]))) {
      try {
        this.nodeCache = { at: this.now(), nodes: await this.adapter.nodes(this.call, account) };
      } catch {
        // The next poll asks again.
      }
    }
    for (const s of running) {
      const node = find(s.nodes![0]);
      if (node) s.host = node.address;
    }
  }

  /**
   * A second live job carrying a followed task's tags is a stray: a submit that reached a frozen controller
   * only after the retry had already found (or made) the task's job. Left alone it would run the work twice
   * and hold cards nobody follows, so it is cancelled as its task's account. The task keeps following the job
   * it recorded. Errors are left to the next poll, which sees the stray again.
   */
  private cancelStrays(followed: readonly JobRef[], live: Iterable<SlurmJob>): void {
    const byTag = new Map<string, JobRef>();
    for (const ref of followed) {
      byTag.set(`n:${jobName(ref.taskId)}`, ref);
      byTag.set(`c:${jobComment(ref.taskId)}`, ref);
    }
    for (const j of live) {
      if (!STRAY_STATES.has(j.state)) continue;
      const ref = byTag.get(`n:${j.name}`) ?? (j.comment ? byTag.get(`c:${j.comment}`) : undefined);
      if (ref && ref.jobId !== j.jobId) void this.adapter.cancel(this.call, ref.account.name, j.jobId).catch(() => undefined);
    }
  }

  /** Cards per card type from the nodes' gres and gres in use, queued jobs from the controller's list. */
  async capacity(): Promise<CardCapacity[]> {
    const account = this.pool.reader;
    const [nodes, jobs] = await Promise.all([this.adapter.nodes(this.call, account), this.adapter.controllerJobs(this.call, account)]);
    this.nodeCache = { at: this.now(), nodes };
    return this.center.cardTypes.map((ct) => {
      const inPart = nodes.filter((n) => n.partitions.includes(ct.partition));
      const cards = (list: SlurmNode['gres']) => list.filter((g) => gresMatches(ct, g.name, g.type)).reduce((s, g) => s + g.count, 0);
      const queued = jobs.filter(
        (j) => j.state === 'PENDING' && j.partition.split(',').includes(ct.partition) && (!ct.gres || j.gresPerNode.startsWith(`${ct.gres}:`) || j.gresPerNode === ct.gres),
      ).length;
      return {
        cardTypeId: ct.id,
        total: ct.gres ? inPart.reduce((s, n) => s + cards(n.gres), 0) : 0,
        allocated: ct.gres ? inPart.reduce((s, n) => s + cards(n.gresUsed), 0) : 0,
        queued,
        nodesTotal: inPart.length,
        nodesIdle: inPart.filter((n) => n.usable && (ct.gres ? cards(n.gresUsed) === 0 : n.state === 'idle')).length,
      };
    });
  }

  /** Every job of the cluster in accounting since `since` (issue 25, outside jobs): slurm-pool.ts. */
  accountedJobs(since: number): Promise<AccountedJob[]> {
    return this.pool.accountedJobs(since);
  }

  async close(): Promise<void> {
    this.closing.abort(new Error('Slurm executor closed'));
  }

  // ---- request building -------------------------------------------------------------------------------

  /**
   * Resources: partition and gres from the card type; cpus and memory from its `cpusPerCard` /
   * `memoryGBPerCard` × cards per node, but never more than the partition's smallest usable node has (a
   * request above that is refused by Slurm as "Requested node configuration is not available"; the test
   * harness's nodes have CPUs=2 RealMemory=2000). CPU-only jobs take Slurm's defaults (DefMemPerCPU).
   * `batch` scripts' `#SBATCH` lines set tasks, cpus per task, memory, constraint and qos (sbatch-options.ts).
   */
  async request(spec: JobSpec): Promise<SlurmJobRequest> {
    const ct = spec.cardType;
    const cards = spec.cardsPerNode;
    const sb = spec.launch === 'batch' ? parseSbatchOptions(spec.script) : {};
    let tasksPerNode: number | undefined = Math.max(1, spec.tasksPerNode ?? 1);
    let tasks = spec.nodes * tasksPerNode;
    if (sb.tasks || sb.tasksPerNode) {
      tasksPerNode = sb.tasksPerNode;
      tasks = sb.tasks ?? spec.nodes * sb.tasksPerNode!;
    }
    let cpusPerTask: number | undefined;
    let memoryPerNodeMB: number | undefined;
    if (cards > 0) {
      const limits = await this.nodeLimits(ct.partition, spec.account.name);
      const perNodeTasks = tasksPerNode ?? Math.ceil(tasks / spec.nodes);
      if (ct.cpusPerCard > 0) {
        const cpus = Math.min(ct.cpusPerCard * cards, limits?.cpus ?? Infinity);
        cpusPerTask = Math.max(1, Math.floor(cpus / perNodeTasks));
      }
      if (ct.memoryGBPerCard > 0) memoryPerNodeMB = Math.min(Math.round(ct.memoryGBPerCard * 1024 * cards), limits?.memoryMB ?? Infinity);
    }
    if (sb.cpusPerTask) cpusPerTask = sb.cpusPerTask;
    const memoryPerCpuMB = sb.memoryPerCpuMB;
    if (sb.memoryPerNodeMB || sb.memoryPerCpuMB) memoryPerNodeMB = sb.memoryPerNodeMB;
    return {
      script: batchScript(spec, this.center.imageLauncher),
      name: jobName(spec.taskId),
      comment: jobComment(spec.taskId),
      account: this.cfg.account,
      partition: ct.partition,
      gres: cards > 0 && ct.gres ? `${ct.gres}:${cards}` : undefined,
      nodes: spec.nodes,
      tasks,
      tasksPerNode,
      cpusPerTask,
      memoryPerNodeMB,
      memoryPerCpuMB,
      constraints: sb.constraints,
      qos: sb.qos,
      exclusive: sb.exclusive,
      timeLimitMinutes: Math.max(1, Math.ceil(spec.timeLimitMinutes)),
      workDir: spec.workDir,
      outputPath: spec.outputPath,
      environment: {
        PATH: BASE_PATH,
        HOME: spec.account.home,
        USER: spec.account.name,
        LOGNAME: spec.account.name,
        LANG: 'C.UTF-8',
        ...spec.env,
      },
    };
  }

  private async nodeLimits(partition: string, account: string): Promise<NodeLimits | undefined> {
    if (!this.nodeCache || this.now() - this.nodeCache.at > this.nodeCacheMs) {
      this.nodeCache = { at: this.now(), nodes: await this.adapter.nodes(this.call, account) };
    }
    const inPart = this.nodeCache.nodes.filter((n) => n.partitions.includes(partition));
    const usable = inPart.some((n) => n.usable) ? inPart.filter((n) => n.usable) : inPart;
    if (!usable.length) return undefined;
    return { cpus: Math.min(...usable.map((n) => n.cpus)), memoryMB: Math.min(...usable.map((n) => n.realMemoryMB)) };
  }

  // ---- transport --------------------------------------------------------------------------------------

  /** One request to slurmrestd as `account`, with its token and a time limit; JSON both ways. */
  private readonly call: SlurmCall = async (account, method, path, body) => {
    const token = await this.tokens.token(account);
    const url = `${this.cfg.restUrl}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          'X-SLURM-USER-NAME': account,
          'X-SLURM-USER-TOKEN': token,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.closing.signal]),
      });
    } catch (e) {
      throw new Error(`slurmrestd ${method} ${path} (center ${this.center.id}): ${(e as Error).message}`, { cause: e });
    }
    const text = await res.text();
    let reply: SlurmReply;
    try {
      reply = { status: res.status, body: text ? JSON.parse(text) : null };
    } catch {
      throw new Error(`slurmrestd ${method} ${path} (center ${this.center.id}): HTTP ${res.status} ${text.slice(0, 200)}`);
    }
    // A refused token reads as a generic failure (HTTP 500, error -1): the next call mints a new one.
    if (res.status >= 400 && ((reply.body?.errors ?? []) as { error_number?: number }[]).some((e) => e.error_number === -1)) this.tokens.invalidate(account);
    return reply;
  };
}

function gresMatches(ct: CenterCardType, name: string, type: string): boolean {
  if (!ct.gres) return false;
  const [n, t] = ct.gres.split(':');
  return n === name && (!t || t === type);
}

/** Controller states of a job that still waits or runs (a stray in one of these is cancelled). */
const STRAY_STATES = new Set(['PENDING', 'CONFIGURING', 'RUNNING', 'SUSPENDED', 'REQUEUED', 'RESIZING']);

function lowest(jobs: SlurmJob[]): string {
  return jobs.map((j) => j.jobId).sort((a, b) => Number(a) - Number(b))[0];
}
