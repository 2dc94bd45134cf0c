import {
  formatCardHours,
  formatYuan,
  type ChargeRecord,
  type ConsumeRecord,
  type ConsumeStats,
  type ConsumeStatsQuery,
  type GrantRecord,
  type PayChannel,
  type RecordDay,
  type RecordPage,
  type RecordPageQuery,
  type RecordStatsQuery,
  type TeamUsage,
} from '@suanli/contracts';
import { notFound } from '../../errors';
import type { TeamPayers } from '../team/team.service';
import { dayOf } from './metering-plan';
import { monthStartDay } from './metering.service';
import type { CenterConfig } from '../../centers/centers';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import { billedCards } from './metering-plan';
import type { ConsumeRow, MeteringRepository } from './metering.repository';
import type { ChargeRow, OrderRepository } from './order.repository';

/**
 * 费用明细's records (ADR 0012, 0015), each readable by its owner only (`record.read`): 充值记录 (credits of
 * paid orders), 赠送记录 (grants) and 消费记录 (tasks' draws, one record per task, bucket and day), plus the
 * consumption totals per day, center and card type the charts show.
 */
const DAY_MS = 24 * 3600_000;
const CST_MS = 8 * 3600_000;

export class RecordService {
  private readonly centers: Map<string, CenterConfig>;

  constructor(
    private readonly orders: OrderRepository,
    private readonly metering: MeteringRepository,
    centers: CenterConfig[],
    private readonly clock: () => number,
    private readonly access: Pick<AccessService, 'found'>,
    /** Teams' records and usage (ADR 0017): any member reads them. */
    private readonly teams?: Pick<TeamPayers, 'payer' | 'usageMembers'>,
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /** Whose records: the caller's, or with `teamId` the team's (a member's read; 1205 for anyone else). */
  private async ownerOf(p: Principal, teamId: string | undefined): Promise<string> {
    if (!teamId) return p.userId;
    if (!this.teams) throw notFound('团队');
    return (await this.teams.payer(p, teamId, 'team.read')).payer;
  }

  /** 团队详情: each member's team-paid card-seconds this month (UTC+8) per card type, and their limit. */
  async teamUsage(p: Principal, teamId: string): Promise<TeamUsage> {
    if (!this.teams) throw notFound('团队');
    const { payer, members } = await this.teams.usageMembers(p, teamId);
    const now = this.clock();
    const rows = await this.metering.usageByMember(payer, monthStartDay(now));
    const cardTypeIds = [...new Set(rows.map((r) => r.cardTypeId))].sort();
    const cardTypes = cardTypeIds.map((id) => ({ cardTypeId: id, cardTypeName: this.cardTypeName(id) }));
    // Members first, then anyone who drew this month and has left since (their usage still counts).
    const people = [...members, ...[...new Set(rows.map((r) => r.userId))].filter((u) => !members.some((m) => m.userId === u)).map((u) => ({ userId: u, username: '', limit: null }))];
    return {
      month: dayOf(now).slice(0, 7),
      cardTypes,
      members: people.map((m) => {
        const mine = rows.filter((r) => r.userId === m.userId);
        const total = mine.reduce((s, r) => s + r.cardSeconds, 0);
        return {
          userId: m.userId,
          username: m.username,
          total: formatCardHours(total),
          limitCardHours: m.limit === null ? null : Math.floor(m.limit / 3600),
          byCardType: mine.map((r) => ({ cardTypeId: r.cardTypeId, cardTypeName: this.cardTypeName(r.cardTypeId), cardHours: formatCardHours(r.cardSeconds), cardSeconds: r.cardSeconds })),
        };
      }),
    };
  }

  async page(p: Principal, q: RecordPageQuery): Promise<RecordPage> {
    const ownerId = await this.ownerOf(p, q.teamId);
    const offset = (q.pageNum - 1) * q.pageSize;
    const at = { pageNum: q.pageNum, pageSize: q.pageSize };
    if (q.type === 'consume') {
      const { rows, total } = await this.metering.consumePage(
        { ownerId, subCenterId: q.subCenterId, cardTypeId: q.cardTypeId, taskId: q.taskId, startTime: q.startTime, endTime: q.endTime },
        offset,
        q.pageSize,
      );
      return { list: rows.map((r) => this.toConsume(r)), total, ...at };
    }
    const kind = q.type === 'grant' ? 'grant' : 'order';
    const { rows, total } = await this.orders.chargePage(
      { ownerId, kind, subCenterId: q.subCenterId, cardTypeId: q.cardTypeId, startTime: q.startTime, endTime: q.endTime },
      offset,
      q.pageSize,
    );
    return { list: rows.map((r) => (kind === 'grant' ? this.toGrant(r) : this.toCharge(r))), total, ...at };
  }

  /**
   * Records per calendar day (UTC+8) under the page's filters — 费用中心's per-day charts: purchases or grants
   * (count, 卡时, amount), or consumption (count = tasks that drew that day, 卡时).
   */
  async days(p: Principal, q: RecordStatsQuery): Promise<RecordDay[]> {
    const ownerId = await this.ownerOf(p, q.teamId);
    if (q.type === 'consume') {
      const days = await this.metering.consumeDays({ ownerId, subCenterId: q.subCenterId, cardTypeId: q.cardTypeId, taskId: q.taskId, startTime: q.startTime, endTime: q.endTime });
      return days.map((d) => ({ day: d.day, count: d.tasks, cardHours: formatCardHours(d.cardSeconds) }));
    }
    const kind = q.type === 'grant' ? 'grant' : 'order';
    const days = await this.orders.chargeDays({ ownerId, kind, subCenterId: q.subCenterId, cardTypeId: q.cardTypeId, startTime: q.startTime, endTime: q.endTime });
    return days.map((d) => ({ day: new Date(d.day * DAY_MS).toISOString().slice(0, 10), count: d.count, cardHours: formatCardHours(d.cardSeconds), amount: formatYuan(d.amount) }));
  }

  async charge(p: Principal, id: string): Promise<ChargeRecord> {
    const row = await this.orders.charge(id);
    return this.toCharge(this.access.found(p, 'record.read', row?.kind === 'order' ? row : undefined, (r) => ({ ownerId: r.owner_id }), '充值记录'));
  }

  async consume(p: Principal, id: string): Promise<ConsumeRecord> {
    return this.toConsume(this.access.found(p, 'record.read', await this.metering.consume(id), (r) => ({ ownerId: r.owner_id }), '消费记录'));
  }

  async consumeStats(p: Principal, q: ConsumeStatsQuery): Promise<ConsumeStats> {
    const { teamId, ...filters } = q;
    const t = await this.metering.consumeTotals({ ownerId: await this.ownerOf(p, teamId), ...filters });
    const sum = (n: number | string | null) => ({ cardHours: formatCardHours(Number(n ?? 0)), cardSeconds: Number(n ?? 0) });
    const totalSeconds = t.byDay.reduce((s, r) => s + Number(r.n ?? 0), 0);
    return {
      total: formatCardHours(totalSeconds),
      totalSeconds,
      byDay: t.byDay.map((r) => ({ day: r.day, ...sum(r.n) })),
      byCenter: t.byCenter.map((r) => ({ subCenterId: r.sub_center_id, subCenterName: this.names(r.sub_center_id, '').subCenterName, ...sum(r.n) })),
      byCardType: t.byCardType.map((r) => ({ cardTypeId: r.card_type_id, cardTypeName: this.cardTypeName(r.card_type_id), ...sum(r.n) })),
      byTask: t.byTask.map((r) => ({ taskId: r.task_id, taskKind: r.task_kind, taskName: r.task_name ?? '', ...sum(r.n) })),
    };
  }

  /**
   * Platform-wide card-seconds per calendar day (UTC+8) from `from` (a day's start) to `to` (exclusive):
   * sold (credits of paid orders), granted, consumed — days without any are absent. The read port of 平台概览;
   * its caller checks the operator's permission.
   */
  async platformDays(from: number, to: number): Promise<Map<string, { sold: number; granted: number; consumed: number }>> {
    const iso = (ms: number) => new Date(ms + CST_MS).toISOString().slice(0, 10);
    const [charges, consumes] = await Promise.all([this.orders.platformChargeDays(from, to), this.metering.platformConsumeDays(iso(from), iso(to - 1))]);
    const out = new Map<string, { sold: number; granted: number; consumed: number }>();
    const at = (day: string) => out.get(day) ?? out.set(day, { sold: 0, granted: 0, consumed: 0 }).get(day)!;
    for (const c of charges) {
      const d = at(new Date(c.day * DAY_MS).toISOString().slice(0, 10));
      if (c.kind === 'order') d.sold += c.cardSeconds;
      else d.granted += c.cardSeconds;
    }
    for (const c of consumes) at(c.day).consumed += c.cardSeconds;
    return out;
  }

  // ---- shapes ------------------------------------------------------------------------------------------

  private names(centerId: string, cardTypeId: string) {
    // A center or card type removed from the config still shows its records under their ids.
    const center = this.centers.get(centerId);
    return { subCenterName: center?.name ?? centerId, cardTypeName: center?.cardTypes.find((t) => t.id === cardTypeId)?.name ?? cardTypeId };
  }

  private cardTypeName(cardTypeId: string): string {
    for (const c of this.centers.values()) {
      const t = c.cardTypes.find((x) => x.id === cardTypeId);
      if (t) return t.name;
    }
    return cardTypeId;
  }

  private toCharge(r: ChargeRow): ChargeRecord {
    return {
      id: r.id,
      // kind 'order': these are set (a grant has none and is never shown as a charge).
      orderId: r.order_id!,
      orderNo: r.order_no!,
      amount: formatYuan(Number(r.amount)),
      cardHours: formatCardHours(Number(r.card_seconds)),
      compPowerId: r.comp_power_id,
      subCenterId: r.sub_center_id,
      cardTypeId: r.card_type_id,
      ...this.names(r.sub_center_id, r.card_type_id),
      payChannel: r.pay_channel as PayChannel,
      createTime: Number(r.create_time),
    };
  }

  private toGrant(r: ChargeRow): GrantRecord {
    return {
      id: r.id,
      cardHours: formatCardHours(Number(r.card_seconds)),
      compPowerId: r.comp_power_id,
      subCenterId: r.sub_center_id,
      cardTypeId: r.card_type_id,
      ...this.names(r.sub_center_id, r.card_type_id),
      reason: r.reason,
      createTime: Number(r.create_time),
    };
  }

  private toConsume(r: ConsumeRow): ConsumeRecord {
    const cardNum = Number(r.card_num);
    const nodeNum = Number(r.node_num);
    return {
      id: r.id,
      taskId: r.task_id,
      taskKind: r.task_kind,
      taskName: r.task_name,
      subCenterId: r.sub_center_id,
      cardTypeId: r.card_type_id,
      ...this.names(r.sub_center_id, r.card_type_id),
      cardNum,
      nodeNum,
      billedCards: billedCards(cardNum, nodeNum),
      day: r.day,
      startTime: Number(r.start_time),
      endTime: Number(r.end_time),
      cardHours: formatCardHours(Number(r.card_seconds)),
      cardSeconds: Number(r.card_seconds),
      compPowerId: r.comp_power_id,
      createTime: Number(r.create_time),
      updateTime: Number(r.update_time),
      ...(r.user_id && r.user_id !== r.owner_id ? { userId: r.user_id } : {}),
    };
  }
}
