import { ErrorCode, formatCardHours, isTerminal, type JobState, type OutsideJob, type OutsideJobPage, type OutsideJobPageQuery, type Reconciliation, type ReconcileDifference, type ReconcileQuery } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError } from '../../errors';
import type { AccountedJob, Executor } from '../../executors/executor';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { MeterTask, TaggedTask, TaskMeterSource } from '../task/task-compute';
import { billedCards, elapsedSeconds, splitByDay } from './metering-plan';
import type { MeteringRepository } from './metering.repository';
import type { OutsideJobRepository, OutsideJobRow } from './outside-job.repository';

/** The task kind of an outside job's meter and consume records. */
export const OUTSIDE_KIND = 'outside';

/** Why metering ended an outside job (shown on the 外部作业 row). */
export const OUTSIDE_STOP_REASON = '算力已用完，作业已被平台终止。请购买算力后重新提交';

/**
 * Accounting is read from the cursor minus this: slurmdbd learns of a job's end a moment after slurmctld, and
 * the cursor is stamped by the gateway's clock, so a read starting in between must not miss an end.
 */
const CURSOR_MARGIN_MS = 5 * 60_000;
const DAY_MS = 24 * 3600_000;
const UTC8_MS = 8 * 3600_000;
/** The reconciliation reads at most this many days at once. */
const RECONCILE_MAX_DAYS = 31;

/** Why a held account's job waits (its 外部作业 row). */
export const HELD_REASON = '算力余额不足，分中心已暂停该账号的新作业；购买或获赠算力后自动开始';

/** A center's outside-job key: the meter key, the consume records' task id and the row's id. */
export const outsideKey = (centerId: string, jobId: string) => `${centerId}:${jobId}`;

/** The console's tag on a job (executors/slurm: name `suanli-<taskId>`, comment `suanli:<taskId>`). */
function taskTag(j: Pick<AccountedJob, 'name' | 'comment'>): string | null {
  return /^suanli-(.+)$/.exec(j.name)?.[1] ?? (j.comment ? (/^suanli:(.+)$/.exec(j.comment)?.[1] ?? null) : null);
}

/** The scheduler's state word → the platform's JobState. */
export function outsideState(j: Pick<AccountedJob, 'state' | 'startTime' | 'endTime'>): JobState {
  switch (j.state) {
    case 'PENDING':
    case 'REQUEUED':
      return 'QUEUED';
    case 'COMPLETED':
      return 'SUCCEEDED';
    case 'CANCELLED':
      return 'STOPPED';
    case 'RUNNING':
    case 'SUSPENDED':
    case 'CONFIGURING':
    case 'COMPLETING':
    case 'RESIZING':
      return 'RUNNING';
    default:
      // FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED…: ended, not by the user.
      return j.endTime ? 'FAILED' : 'RUNNING';
  }
}

interface Log {
  warn: (o: object, msg: string) => void;
}

/**
 * Every job is accounted (issue 25): on the metering leader, before each pass over a center, the jobs of the
 * pool's accounts are read from the center's accounting (slurmdbd through slurmrestd) from a cursor. Those
 * tagged with a console task are the task's (metered as the task); the others are 外部作业, stored keyed
 * `<center>:<jobId>` and handed to the same metering (MeteringService.meter) as tasks: same rounding, same
 * exactly-once meters, same consume records (task_kind `outside`). When the owner's compute power runs out a
 * running outside job is cancelled through the executor, as a task is. Also the owner's list (任务管理 ›
 * 外部作业) and the operators' reconciliation of accounting against draws.
 */
export class OutsideJobService {
  private readonly centers: Map<string, CenterConfig>;

  constructor(
    private readonly repo: OutsideJobRepository,
    private readonly metering: MeteringRepository,
    centers: CenterConfig[],
    private readonly executors: ReadonlyMap<string, Executor>,
    /** account → the user holding it on the center and since when (the cluster-account module). */
    private readonly owners: (subCenterId: string, accounts: string[]) => Promise<Map<string, { userId: string; since: number }>>,
    private readonly access: Pick<AccessService, 'require'>,
    private readonly clock: () => number,
    private readonly log: Log,
    /** The user's cluster accounts Slurm holds for lack of compute power (`BalanceLimits.heldOf`). */
    private readonly held: (userId: string) => Promise<{ subCenterId: string; account: string }[]> = async () => [],
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /** Whether the center has an outside route at all (the local executor has none). */
  reads(centerId: string): boolean {
    return Boolean(this.executors.get(centerId)?.accountedJobs);
  }

  /**
   * Reads the center's accounting from its cursor and stores the pool accounts' jobs no console task owns.
   * Throws when accounting cannot be read (the cursor stays; the next pass reads the gap).
   */
  async sync(centerId: string, tasks: Pick<TaskMeterSource, 'tagged'>): Promise<number> {
    const exec = this.executors.get(centerId);
    const center = this.centers.get(centerId);
    if (!exec?.accountedJobs || !center) return 0;
    const now = this.clock();
    const key = `outside:${centerId}`;
    // Never before metering of outside jobs began (migration 0036): the margin must not reach back to jobs
    // that ended before it.
    const began = (await this.metering.cursor('outside:*')) ?? now;
    const cursor = (await this.metering.cursor(key)) ?? began;
    const all = await exec.accountedJobs(Math.max(began, cursor - CURSOR_MARGIN_MS));
    const mine = await this.poolJobs(center, all);
    // The tag is a job name the user can set over SSH, so a tagged job is a console task's only when the task
    // matches it: this center, the account's owner, and this job (or none yet, while its submit is in flight).
    // A deleted task keeps its meter: its job was submitted before the meter began.
    const tags = [...new Set(mine.jobs.map(taskTag).filter((t): t is string => Boolean(t)))];
    const tagged = tags.length ? await tasks.tagged(tags) : new Map<string, TaggedTask>();
    const meters = new Map((tags.length ? await this.metering.meters(tags) : []).map((m) => [m.task_id, m]));
    const consoleJob = (j: AccountedJob, tag: string, ownerId: string) => {
      const t = tagged.get(tag);
      if (t) return t.subCenterId === centerId && t.ownerId === ownerId && (t.jobId === null || t.jobId === j.jobId);
      const m = meters.get(tag);
      return Boolean(m && m.sub_center_id === centerId && j.submitTime !== null && j.submitTime <= Number(m.create_time));
    };
    const known = await this.repo.existing(mine.jobs.map((j) => outsideKey(centerId, j.jobId)));
    const rows: OutsideJobRow[] = [];
    for (const j of mine.jobs) {
      const id = outsideKey(centerId, j.jobId);
      const tag = taskTag(j);
      if (!known.has(id) && tag && consoleJob(j, tag, mine.owners.get(j.user)!.userId)) continue;
      const cardNum = Math.ceil(j.cards / Math.max(1, j.nodes));
      rows.push({
        id,
        sub_center_id: centerId,
        job_id: j.jobId,
        account: j.user,
        owner_id: mine.owners.get(j.user)!.userId,
        card_type_id: cardTypeOf(center, j),
        name: j.name.slice(0, 200),
        partition: j.partition,
        state: outsideState(j),
        slurm_state: j.state,
        stop_reason: null,
        card_num: cardNum,
        node_num: j.nodes,
        submit_time: j.submitTime,
        start_time: j.startTime,
        end_time: j.endTime,
        create_time: now,
        update_time: now,
      });
    }
    await this.repo.upsert(rows);
    await this.metering.setCursor(key, now);
    return rows.length;
  }

  /**
   * The jobs of pool accounts held by a platform user, submitted since the user got the account: a job of the
   * same POSIX account from before (another holder, a test harness shared by several databases) is not theirs.
   */
  private async poolJobs(center: CenterConfig, all: AccountedJob[]) {
    const pool = all.filter((j) => j.user.startsWith(center.accounts.prefix));
    const owners = pool.length ? await this.owners(center.id, pool.map((j) => j.user)) : new Map<string, { userId: string; since: number }>();
    const jobs = pool.filter((j) => {
      const o = owners.get(j.user);
      return o !== undefined && (j.submitTime ?? j.startTime ?? Infinity) >= o.since;
    });
    return { jobs, owners };
  }

  /** The center's outside jobs to meter (started, not settled), as metering sees a task. */
  async meterable(centerId: string): Promise<MeterTask[]> {
    return (await this.repo.meterable(centerId)).map((r) => ({
      id: r.id,
      owner_id: r.owner_id,
      payer_id: null,
      kind: OUTSIDE_KIND,
      name: r.name,
      state: r.state,
      sub_center_id: r.sub_center_id,
      card_type_id: r.card_type_id,
      card_num: Number(r.card_num),
      node_num: Number(r.node_num),
      start_time: Number(r.start_time),
      end_time: r.end_time === null ? null : Number(r.end_time),
    }));
  }

  /** Ends a running outside job whose owner's compute power ran out (scancel as its account; idempotent). */
  async stop(task: MeterTask): Promise<boolean> {
    const [row] = await this.repo.byIds([task.id]);
    const exec = this.executors.get(task.sub_center_id);
    if (!row || !exec) return false;
    await this.repo.markStopped(row.id, OUTSIDE_STOP_REASON, this.clock());
    await exec.cancel({ jobId: row.job_id, taskId: row.id, account: { name: row.account, uid: 0, home: '' } });
    return true;
  }

  // ---- reads ---------------------------------------------------------------------------------------------

  /** 任务管理 › 外部作业: the caller's own outside jobs, newest first. */
  async page(p: Principal, q: OutsideJobPageQuery): Promise<OutsideJobPage> {
    const { rows, total } = await this.repo.page(p.userId, q.subCenterId, (q.pageNum - 1) * q.pageSize, q.pageSize);
    // A job waiting while its account is held says so: Slurm's word for it (AssocGrpGRES) means nothing to a user.
    const held = rows.some((r) => r.state === 'QUEUED') ? new Set((await this.held(p.userId)).map((h) => outsideKey(h.subCenterId, h.account))) : new Set<string>();
    const list: OutsideJob[] = rows.map((r) => {
      const center = this.centers.get(r.sub_center_id);
      const drawn = Number(r.drawn ?? 0);
      return {
        id: r.id,
        jobId: r.job_id,
        account: r.account,
        name: r.name,
        state: r.state as JobState,
        slurmState: r.slurm_state,
        reason: r.stop_reason ?? (r.state === 'QUEUED' && held.has(outsideKey(r.sub_center_id, r.account)) ? HELD_REASON : ''),
        subCenterId: r.sub_center_id,
        subCenterName: center?.name ?? r.sub_center_id,
        cardTypeId: r.card_type_id,
        cardTypeName: center?.cardTypes.find((t) => t.id === r.card_type_id)?.name ?? r.card_type_id,
        partition: r.partition,
        cardNum: Number(r.card_num),
        nodeNum: Number(r.node_num),
        billedCards: billedCards(Number(r.card_num), Number(r.node_num)),
        submitTime: r.submit_time === null ? null : Number(r.submit_time),
        startTime: r.start_time === null ? null : Number(r.start_time),
        endTime: r.end_time === null ? null : Number(r.end_time),
        consumed: formatCardHours(drawn),
        consumedSeconds: drawn,
      };
    });
    return { list, total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /**
   * 计量对账 (issue 25, item 4): per center and day (UTC+8), the card-seconds of the pool accounts' ended jobs
   * as the scheduler's accounting has them — billed cards × floor((end − start) / 1 s), cut at day ends as
   * metering cuts them — against the card-seconds drawn for those days; every (job, day) that differs is
   * listed, and draws no accounted job explains too. Jobs still running are counted, not compared.
   */
  async reconcile(p: Principal, q: ReconcileQuery): Promise<Reconciliation> {
    this.access.require(p, 'metering.reconcile');
    const fromMs = Date.parse(`${q.fromDay}T00:00:00Z`) - UTC8_MS;
    const toMs = Date.parse(`${q.toDay}T00:00:00Z`) - UTC8_MS + DAY_MS;
    if (!Number.isFinite(fromMs) || !Number.isFinite(toMs) || toMs <= fromMs) throw new AppError(ErrorCode.PARAM_INVALID, '日期范围不正确');
    if ((toMs - fromMs) / DAY_MS > RECONCILE_MAX_DAYS) throw new AppError(ErrorCode.PARAM_INVALID, `对账日期范围最多 ${RECONCILE_MAX_DAYS} 天`);
    if (q.subCenterId && !this.centers.has(q.subCenterId)) throw new AppError(ErrorCode.NOT_FOUND, '算力分中心不存在');
    const out: Reconciliation = { days: [], differences: [], running: 0, unavailable: [], reconciled: [] };
    for (const center of this.centers.values()) {
      if (q.subCenterId && center.id !== q.subCenterId) continue;
      const exec = this.executors.get(center.id);
      if (!exec?.accountedJobs) {
        out.unavailable.push(center.name);
        continue;
      }
      let jobs: AccountedJob[];
      try {
        jobs = await exec.accountedJobs(fromMs);
      } catch (err) {
        this.log.warn({ err, centerId: center.id }, 'reconcile: accounting unreadable');
        out.unavailable.push(center.name);
        continue;
      }
      out.reconciled.push(center.name);
      const mine = (await this.poolJobs(center, jobs)).jobs.filter((j) => j.startTime !== null && j.startTime < toMs);
      const outside = new Set((await this.repo.byIds(mine.map((j) => outsideKey(center.id, j.jobId)))).map((r) => r.id));
      const fromDay = q.fromDay;
      const toDay = q.toDay;
      const drawn = await this.repo.drawnByKeyDay(center.id, fromDay, toDay);
      const drawnAt = new Map(drawn.map((d) => [`${d.key}|${d.day}`, d]));
      const taskKeys = mine.map(taskTag).filter((t): t is string => Boolean(t));
      const taskCards = await this.repo.cardsOf(taskKeys);
      // (key, day) → accounted card-seconds, with what names the row.
      const accounted = new Map<string, { key: string; day: string; seconds: number; job: AccountedJob; kind: ReconcileDifference['kind'] }>();
      for (const j of mine) {
        if (j.endTime === null || !isTerminal(outsideState(j))) {
          out.running++;
          continue;
        }
        const oKey = outsideKey(center.id, j.jobId);
        const tag = taskTag(j);
        const kind: ReconcileDifference['kind'] = outside.has(oKey) ? 'outside' : tag && taskCards.has(tag) ? 'task' : 'unknown';
        const key = kind === 'outside' ? oKey : kind === 'task' ? tag! : oKey;
        // A console job is billed at its task's cards (a CPU card type counts cards the scheduler does not).
        const cards = kind === 'task' ? billedCards(taskCards.get(tag!)!.cardNum, taskCards.get(tag!)!.nodeNum) : billedCards(Math.ceil(j.cards / j.nodes), j.nodes);
        for (const span of splitByDay(j.startTime!, 0, elapsedSeconds(j.startTime!, j.endTime))) {
          if (span.day < fromDay || span.day > toDay) continue;
          const k = `${key}|${span.day}`;
          const prev = accounted.get(k);
          accounted.set(k, { key, day: span.day, seconds: (prev?.seconds ?? 0) + cards * (span.to - span.from), job: j, kind });
        }
      }
      const days = new Map<string, { accounted: number; drawn: number; jobs: Set<string> }>();
      const dayRow = (day: string) => days.get(day) ?? days.set(day, { accounted: 0, drawn: 0, jobs: new Set() }).get(day)!;
      for (const [k, a] of accounted) {
        const d = drawnAt.get(k);
        const got = d?.cardSeconds ?? 0;
        const row = dayRow(a.day);
        row.accounted += a.seconds;
        row.drawn += got;
        row.jobs.add(a.job.jobId);
        if (got !== a.seconds || a.kind === 'unknown') {
          out.differences.push({
            subCenterId: center.id,
            day: a.day,
            jobId: a.job.jobId,
            kind: a.kind,
            meterKey: a.kind === 'unknown' ? '' : a.key,
            name: a.job.name,
            account: a.job.user,
            accountedSeconds: a.seconds,
            drawnSeconds: got,
            differenceSeconds: got - a.seconds,
          });
        }
      }
      // Draws of the range that no ended accounted job explains (still-running jobs' interim draws are theirs).
      const runningKeys = new Set(mine.filter((j) => j.endTime === null || !isTerminal(outsideState(j))).flatMap((j) => [outsideKey(center.id, j.jobId), taskTag(j) ?? '']));
      for (const d of drawn) {
        if (accounted.has(`${d.key}|${d.day}`) || runningKeys.has(d.key)) continue;
        const row = dayRow(d.day);
        row.drawn += d.cardSeconds;
        out.differences.push({
          subCenterId: center.id,
          day: d.day,
          jobId: '',
          kind: 'unknown',
          meterKey: d.key,
          name: d.name,
          account: '',
          accountedSeconds: 0,
          drawnSeconds: d.cardSeconds,
          differenceSeconds: d.cardSeconds,
        });
      }
      for (const [day, r] of [...days].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        out.days.push({ subCenterId: center.id, subCenterName: center.name, day, accountedSeconds: r.accounted, drawnSeconds: r.drawn, differenceSeconds: r.drawn - r.accounted, jobs: r.jobs.size });
      }
    }
    return out;
  }
}

/** The card type an outside job is billed as: its partition's (and gres's), else its partition's, else the center's first. */
function cardTypeOf(center: CenterConfig, j: AccountedJob): string {
  const inPart = center.cardTypes.filter((t) => j.partition.split(',').includes(t.partition));
  const byGres = inPart.find((t) => t.gres && j.gres && (j.gres === t.gres || j.gres.startsWith(`${t.gres}:`) || t.gres.startsWith(`${j.gres}`)));
  return (byGres ?? inPart.find((t) => (j.cards > 0) === Boolean(t.gres)) ?? inPart[0] ?? center.cardTypes[0]).id;
}
