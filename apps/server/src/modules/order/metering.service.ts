import { ErrorCode, formatCardHours, isTerminal, teamOfPayer, type InsufficientCompPower, type JobState } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { Principal } from '../access/principal';
import { TEAM_STOP_PREFIX, type MeterTask, type TaskCompute } from '../task/task-compute';
import type { TeamPayers } from '../team/team.service';
import { billedCards, dayOf, drawOrder, elapsedSeconds, planDraw, planReturn, type PlanBucket } from './metering-plan';
import type { Advance, ConsumeRow, MeterRow, MeteringRepository } from './metering.repository';
import { BATCH } from './metering.repository';

/** A concurrent writer moved a meter or a bucket under this batch: roll back, read again, plan again. */
class Moved extends Error {}

/** Tries of one batch against concurrent writers before it is left to the next pass. */
const TRIES = 3;

export interface MeterOutcome {
  /** Tasks whose meter moved. */
  metered: number;
  /** Card-seconds drawn (net of returns). */
  drawn: number;
  /**
   * Tasks still running to be stopped: their matching compute power is used up, or (team-paid, ADR 0017) the
   * member reached their monthly limit or left the team — then `stopReason` says so.
   */
  empty: (MeterTask & { stopReason?: string })[];
}

interface Log {
  warn: (o: object, msg: string) => void;
}

/**
 * Metering (ADR 0015): running tasks draw billedCards × elapsed seconds from the owner's matching buckets
 * (same center and card type, earliest expiry first, never an expired one), each draw written with its
 * consume records in one transaction; the meter of a task (elapsed seconds already metered) only moves by a
 * conditional UPDATE on the value it was read with, so a retried or concurrent draw never counts twice. An
 * ended task gets its final draw to the scheduler's end, exactly. Also the submit gate and 已消耗.
 */
export class MeteringService implements TaskCompute {
  private readonly centers: Map<string, CenterConfig>;

  constructor(
    private readonly repo: MeteringRepository,
    centers: CenterConfig[],
    private readonly clock: () => number,
    private readonly bus: EventBus,
    private readonly log: Log,
    /** The welcome grant, given (once) before the gate looks at the balance. */
    private readonly welcome: (ownerId: string) => Promise<void>,
    readonly periodMs: number,
    /** Teams as payers (ADR 0017): membership, the member's limit. */
    private readonly teams?: TeamPayers,
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  // ---- TaskCompute ---------------------------------------------------------------------------------------

  async gate(ownerId: string, subCenterId: string, cardTypeId: string, cardNum: number, nodeNum: number, team?: { principal: Principal; teamId: string }): Promise<string | null> {
    const now = this.clock();
    const cards = billedCards(cardNum, nodeNum);
    const need = cards * Math.ceil(this.periodMs / 1000);
    let payer = ownerId;
    let teamName = '';
    if (team) {
      if (!this.teams) throw new AppError(ErrorCode.NOT_FOUND, '团队不存在');
      // A non-member (also one who left or was removed) gets 1205, as for a missing team.
      const t = await this.teams.payer(team.principal, team.teamId, 'team.read');
      payer = t.payer;
      teamName = t.name;
      if (t.limit !== null) {
        const used = await this.repo.monthUsed(payer, ownerId, monthStartDay(now));
        if (used + need > t.limit) {
          throw new AppError(
            ErrorCode.TEAM_MEMBER_LIMIT,
            `已达到团队「${t.name}」为您设置的每月限额 ${formatCardHours(t.limit)} 卡时（本月已用 ${formatCardHours(used)} 卡时），无法以团队付费提交，请联系团队所有者或管理员`,
          );
        }
      }
    } else {
      await this.welcome(ownerId);
    }
    const balance = await this.repo.balance(payer, subCenterId, cardTypeId, now);
    if (balance >= need) return team ? payer : null;
    const center = this.centers.get(subCenterId);
    const data: InsufficientCompPower = {
      subCenterId,
      subCenterName: center?.name ?? subCenterId,
      cardTypeId,
      cardTypeName: center?.cardTypes.find((t) => t.id === cardTypeId)?.name ?? cardTypeId,
      balance: formatCardHours(balance),
      need: cardHoursUp(need),
    };
    const period = this.periodMs % 60_000 === 0 ? `${this.periodMs / 60_000} 分钟` : `${Math.ceil(this.periodMs / 1000)} 秒`;
    throw new AppError(
      ErrorCode.COMP_POWER_INSUFFICIENT,
      `算力不足：${teamName ? `团队「${teamName}」在 ` : ''}${data.subCenterName} ${data.cardTypeName} 剩余 ${data.balance} 卡时，本任务（${cards} 卡）每个计费周期（${period}）需 ${data.need} 卡时，${teamName ? '请团队所有者或管理员购买算力' : '请先购买算力'}`,
      200,
      data,
    );
  }

  async consumed(taskId: string): Promise<number> {
    return Number((await this.repo.meter(taskId))?.drawn ?? 0);
  }

  async settle(task: MeterTask): Promise<void> {
    await this.meter([task], this.clock());
  }

  // ---- the pass ------------------------------------------------------------------------------------------

  /**
   * Meters `tasks` as of `now`: a running one up to now, an ended one (end time stored) to its end, exactly.
   * Tasks are written in batches, each in one transaction; owners who were drawn from are told
   * (`comp-power.changed`) after the commit.
   */
  async meter(tasks: MeterTask[], now: number): Promise<MeterOutcome> {
    const out: MeterOutcome = { metered: 0, drawn: 0, empty: [] };
    if (!tasks.length) return out;
    // Meters for tasks seen for the first time, then every task's meter in one read.
    let meters = new Map((await this.repo.meters(tasks.map((t) => t.id))).map((m) => [m.task_id, m]));
    const fresh = tasks.filter((t) => !meters.has(t.id));
    if (fresh.length) {
      await this.repo.ensureMeters(
        fresh.map((t) => ({ taskId: t.id, ownerId: t.owner_id, subCenterId: t.sub_center_id, cardTypeId: t.card_type_id })),
        now,
      );
      for (const m of await this.repo.meters(fresh.map((t) => t.id))) meters.set(m.task_id, m);
    }
    // One owner's tasks together, so a batch reads each owner's buckets once; ids in one order on every replica.
    const sorted = [...tasks].sort((a, b) => (payerOf(a) < payerOf(b) ? -1 : payerOf(a) > payerOf(b) ? 1 : a.id < b.id ? -1 : 1));
    const touched = new Set<string>();
    for (let i = 0; i < sorted.length; i += BATCH) {
      const batch = sorted.slice(i, i + BATCH);
      for (let attempt = 1; ; attempt++) {
        try {
          const r = await this.meterBatch(batch, meters, now, touched);
          out.metered += r.metered;
          out.drawn += r.drawn;
          out.empty.push(...r.empty);
          break;
        } catch (err) {
          if (!(err instanceof Moved) || attempt >= TRIES) {
            this.log.warn({ err, tasks: batch.length }, 'metering: batch left to the next pass');
            break;
          }
          // Someone else moved these meters: read them again and plan from there.
          meters = new Map([...meters, ...(await this.repo.meters(batch.map((t) => t.id))).map((m) => [m.task_id, m] as const)]);
        }
      }
    }
    await this.tell(touched);
    await this.teamStops(tasks, now, out);
    return out;
  }

  /**
   * `comp-power.changed` to whoever sees a balance that moved: a user's own, or for a team payer (`team:<id>`)
   * every current member (ADR 0017: any member reads the team's balance); each user once per pass.
   */
  private async tell(touched: Set<string>): Promise<void> {
    const users = new Set<string>();
    for (const key of touched) {
      const teamId = teamOfPayer(key);
      if (!teamId) users.add(key);
      else if (this.teams) for (const id of await this.teams.memberIds(teamId)) users.add(id);
    }
    for (const user of users) await this.bus.publish(user, { businessType: 'comp-power.changed', data: {} });
  }

  /**
   * Team-paid tasks still running (ADR 0017) whose member left the team, or whose member's team-paid usage
   * this month reached their limit, join the tasks to stop — the same stop as for used-up compute power.
   */
  private async teamStops(tasks: MeterTask[], now: number, out: MeterOutcome): Promise<void> {
    const paid = tasks.filter((t) => t.state === 'RUNNING' && teamOfPayer(t.payer_id) && !out.empty.some((e) => e.id === t.id));
    if (!paid.length || !this.teams) return;
    const standing = await this.teams.standing(paid.map((t) => ({ teamId: teamOfPayer(t.payer_id)!, userId: t.owner_id })));
    const used = await this.repo.monthUsedBy([...new Set(paid.map((t) => t.payer_id!))], monthStartDay(now));
    for (const t of paid) {
      const s = standing.get(`${teamOfPayer(t.payer_id)}|${t.owner_id}`);
      if (!s) continue;
      if (s.dissolved) {
        out.empty.push({ ...t, stopReason: `${TEAM_STOP_PREFIX}付费团队已解散，团队不再为此任务付费` });
        continue;
      }
      if (!s.member) {
        out.empty.push({ ...t, stopReason: `${TEAM_STOP_PREFIX}您已不是团队「${s.teamName}」的成员，团队不再为此任务付费` });
        continue;
      }
      const u = used.get(`${t.payer_id}|${t.owner_id}`) ?? 0;
      if (s.limit !== null && u >= s.limit) {
        out.empty.push({ ...t, stopReason: `${TEAM_STOP_PREFIX}本月已用 ${formatCardHours(u)} 卡时，达到团队「${s.teamName}」为您设置的每月限额 ${formatCardHours(s.limit)} 卡时` });
      }
    }
  }

  private async meterBatch(batch: MeterTask[], meters: Map<string, MeterRow>, now: number, touched: Set<string>): Promise<MeterOutcome> {
    const ahead: { task: MeterTask; meter: MeterRow; target: number }[] = [];
    const work: { task: MeterTask; meter: MeterRow; target: number; final: boolean }[] = [];
    for (const task of batch) {
      const meter = meters.get(task.id);
      if (!meter || Number(meter.settled)) continue;
      const ended = isTerminal(task.state as JobState);
      // A terminal task without an end time (it should not happen) is settled at what was metered.
      const target = ended ? (task.end_time === null ? Number(meter.metered) : elapsedSeconds(task.start_time, task.end_time)) : elapsedSeconds(task.start_time, now);
      if (ended && target < Number(meter.metered)) ahead.push({ task, meter, target });
      else if (ended || target > Number(meter.metered)) work.push({ task, meter, target, final: ended });
    }
    const out: MeterOutcome = { metered: 0, drawn: 0, empty: [] };
    const running = batch.filter((t) => !isTerminal(t.state as JobState));
    if (work.length || running.length) {
      await this.repo.transaction(async (trx) => {
        const pools = new Map<string, PlanBucket[]>();
        for (const b of await this.repo.usableBuckets(trx, batch.map(payerOf), now)) {
          const key = poolKey(b.owner_id, b.sub_center_id, b.card_type_id);
          if (!pools.has(key)) pools.set(key, []);
          pools.get(key)!.push({ id: b.id, expireTime: Number(b.expire_time), remaining: Number(b.remaining) });
        }
        for (const p of pools.values()) p.sort(drawOrder);
        const advances: Advance[] = [];
        const takes = new Map<string, number>();
        const records = new Map<string, ConsumeRow>();
        for (const { task, meter, target, final } of work) {
          const from = Number(meter.metered);
          const cards = billedCards(task.card_num, task.node_num);
          const plan = planDraw(task.start_time, from, target, cards, pools.get(poolKey(payerOf(task), task.sub_center_id, task.card_type_id)) ?? []);
          let drawn = 0;
          for (const d of plan.draws) {
            drawn += d.cardSeconds;
            takes.set(d.bucketId, (takes.get(d.bucketId) ?? 0) + d.cardSeconds);
            const key = `${task.id}|${d.bucketId}|${d.day}`;
            const prev = records.get(key);
            records.set(key, {
              id: prev?.id ?? newId(now),
              // A team-paid task's records are the team's; `user_id` names who ran it (ADR 0017).
              owner_id: payerOf(task),
              user_id: task.owner_id,
              task_id: task.id,
              task_kind: task.kind,
              task_name: task.name,
              sub_center_id: task.sub_center_id,
              card_type_id: task.card_type_id,
              card_num: task.card_num,
              node_num: task.node_num,
              comp_power_id: d.bucketId,
              day: d.day,
              card_seconds: (prev?.card_seconds ?? 0) + d.cardSeconds,
              elapsed_from: Math.min(prev?.elapsed_from ?? d.from, d.from),
              elapsed_to: Math.max(prev?.elapsed_to ?? d.to, d.to),
              start_time: task.start_time + Math.min(prev?.elapsed_from ?? d.from, d.from) * 1000,
              end_time: task.start_time + Math.max(prev?.elapsed_to ?? d.to, d.to) * 1000,
              create_time: now,
              update_time: now,
            });
          }
          advances.push({ taskId: task.id, old: from, metered: target, drawn, shortfall: plan.shortfall, final });
          out.drawn += drawn;
          // The runner (its task's 已消耗) and the payer's viewers (a team's members) are told.
          if (drawn) touched.add(task.owner_id).add(payerOf(task));
        }
        if (advances.length && (await this.repo.advance(trx, advances, now)) !== advances.length) throw new Moved();
        if (takes.size && (await this.repo.take(trx, takes)) !== takes.size) throw new Moved();
        if (records.size) await this.repo.upsertRecords(trx, [...records.values()]);
        out.metered = advances.length;
        // Still running with nothing left to draw from: stopped by the caller (after the commit).
        for (const t of running) {
          if (t.state !== 'RUNNING') continue;
          const left = (pools.get(poolKey(payerOf(t), t.sub_center_id, t.card_type_id)) ?? []).reduce((s, b) => s + b.remaining, 0);
          if (left <= 0) out.empty.push(t);
        }
      });
    }
    // Rare (a clock ahead of the scheduler's, a task that ended between a poll and a pass): one at a time.
    for (const a of ahead) {
      const back = await this.giveBack(a.task, a.meter, a.target, now);
      out.drawn -= back;
      out.metered++;
      if (back) touched.add(a.task.owner_id).add(payerOf(a.task));
    }
    return out;
  }

  /**
   * The final draw of a task metered beyond its end: the shortfall is forgiven first, then card-seconds go
   * back to the buckets (the newest records first) — so its draws add up to exactly its accounted runtime.
   */
  private async giveBack(task: MeterTask, meter: MeterRow, target: number, now: number): Promise<number> {
    const excess = billedCards(task.card_num, task.node_num) * (Number(meter.metered) - target);
    return this.repo.transaction(async (trx) => {
      const records = (await this.repo.recordsNewestFirst(trx, task.id)).map((r) => ({ id: r.id, bucketId: r.comp_power_id, cardSeconds: Number(r.card_seconds) }));
      const { forgiven, returns } = planReturn(excess, Number(meter.shortfall), records);
      const back = returns.reduce((s, r) => s + r.cardSeconds, 0);
      const moved = await this.repo.advance(trx, [{ taskId: task.id, old: Number(meter.metered), metered: target, drawn: -back, shortfall: -forgiven, final: true }], now);
      if (moved !== 1) return 0; // settled by someone else meanwhile
      await this.repo.lowerRecords(trx, task.id, returns, { elapsed: target, time: task.start_time + target * 1000 }, now);
      const gives = new Map<string, number>();
      for (const r of returns) gives.set(r.bucketId, (gives.get(r.bucketId) ?? 0) + r.cardSeconds);
      await this.repo.give(trx, gives);
      return back;
    });
  }
}

const poolKey = (owner: string, center: string, cardType: string) => `${owner}|${center}|${cardType}`;

/** Whose buckets a task draws from: its payer (a team, ADR 0017), else its owner. */
const payerOf = (t: MeterTask) => t.payer_id ?? t.owner_id;

/** The first day (UTC+8, `yyyy-MM-01`) of the month `ms` is in: a member's limit counts from there. */
export function monthStartDay(ms: number): string {
  return `${dayOf(ms).slice(0, 7)}-01`;
}

/** Card-seconds → 卡时 rounded up to the hundredth (a need is never shown smaller than it is). */
function cardHoursUp(cardSeconds: number): string {
  const hundredths = Math.ceil((cardSeconds * 100) / 3600);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}

