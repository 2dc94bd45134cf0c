import type { DailyCardHours, MyRunningTask, ResourceCenter, ResourceOverview, UtilizationSeries, VendorCards, WsEvent } from '@suanli/contracts';
import { RESOURCE_KEEP_MS } from '@suanli/contracts';
import { isAccelerator, type CenterConfig } from '../../centers/centers';
import type { Executor } from '../../executors/executor';
import type { Principal } from '../access/principal';
import type { TaskUsageRepository } from '../task/task-usage.repository';
import type { CenterStates } from '../center/center.service';
import type { ResourceRepository } from './resource.repository';

/** CPU-only card types (no card memory, no gres) count cores, not accelerator cards: charts leave them out. */
/** The platform's calendar day: China Standard Time (UTC+8, no daylight saving). */
const DAY_OFFSET_MS = 8 * 3600_000;
const DAY_MS = 24 * 3600_000;
const HOUR_MS = 3600_000;

export interface ResourceOptions {
  /** How often a center's poller leader asks its scheduler for the inventory. */
  sampleIntervalMs: number;
}

/**
 * 资源: samples a center's inventory after its poller's round (only on the replica leading that center, at
 * most once per `sampleIntervalMs`), and answers the overview, the utilization series, cards by vendor and
 * the caller's card-hours from the stored samples and tasks — never by asking a scheduler per page view.
 */
export class ResourceService {
  private readonly lastSample = new Map<string, number>();
  private lastPrune = 0;

  constructor(
    private readonly repo: ResourceRepository,
    /** The caller's tasks holding cards, and those that ran (task module). */
    private readonly usage: Pick<TaskUsageRepository, 'running' | 'ranSince'>,
    private readonly centers: CenterConfig[],
    private readonly executors: ReadonlyMap<string, Executor>,
    private readonly clock: () => number,
    private readonly opts: ResourceOptions,
    /** 正常 / 维护 / 下线 as operators set them. */
    private readonly states: CenterStates,
    /** Tells every open console a sample was stored (the bus, to EVERYONE); best effort. */
    private readonly announce: (event: WsEvent) => Promise<void> = async () => {},
  ) {}

  /** Called after each poll of a center by its leader. */
  async sample(centerId: string, force = false): Promise<void> {
    const now = this.clock();
    if (!force && now - (this.lastSample.get(centerId) ?? 0) < this.opts.sampleIntervalMs) return;
    this.lastSample.set(centerId, now);
    const center = this.centers.find((c) => c.id === centerId);
    const executor = this.executors.get(centerId);
    if (!center || !executor) return;
    let rows;
    try {
      const caps = await executor.capacity();
      rows = center.cardTypes.map((ct) => {
        const c = caps.find((x) => x.cardTypeId === ct.id);
        return {
          sub_center_id: centerId,
          card_type_id: ct.id,
          at: now,
          online: 1,
          total: c?.total ?? 0,
          allocated: c?.allocated ?? 0,
          queued: c?.queued ?? 0,
          nodes_total: c?.nodesTotal ?? 0,
          nodes_idle: c?.nodesIdle ?? 0,
        };
      });
    } catch {
      // The scheduler did not answer: recorded, so the overview says 离线 instead of showing old numbers.
      rows = center.cardTypes.map((ct) => ({ sub_center_id: centerId, card_type_id: ct.id, at: now, online: 0, total: 0, allocated: 0, queued: 0, nodes_total: 0, nodes_idle: 0 }));
    }
    await this.repo.insert(rows);
    await this.announce({ businessType: 'resource.sampled', data: { centerId, sampledAt: now } });
    if (now - this.lastPrune > HOUR_MS) {
      this.lastPrune = now;
      await this.repo.prune(now - RESOURCE_KEEP_MS);
    }
  }

  async overview(p: Principal): Promise<ResourceOverview> {
    const [latest, running, states] = await Promise.all([this.repo.latest(), this.usage.running(p.userId), this.states()]);
    const now = this.clock();
    const centers: ResourceCenter[] = this.centers.map((c) => {
      const rows = latest.filter((r) => r.sub_center_id === c.id);
      const at = rows.length ? Number(rows[0].at) : null;
      const answered = rows.length > 0 && rows.every((r) => Number(r.online) === 1);
      // Stale: no sample for three intervals (the leader is gone or the scheduler hangs).
      const fresh = at !== null && now - at <= 3 * this.opts.sampleIntervalMs + 10_000;
      const status = states.get(c.id)?.status ?? c.status;
      const state = status !== 'online' ? status : at === null || (answered && fresh) ? 'online' : 'offline';
      return {
        subCenterId: c.id,
        subCenterName: c.name,
        region: c.region,
        state,
        sampledAt: at,
        cardTypes: c.cardTypes.map((ct) => {
          const r = rows.find((x) => x.card_type_id === ct.id);
          const total = r ? Number(r.total) : ct.nodes * ct.cardsPerNode;
          const allocated = r ? Number(r.allocated) : 0;
          return {
            cardTypeId: ct.id,
            cardTypeName: ct.name,
            vendor: ct.vendor,
            accelerator: isAccelerator(ct),
            total,
            allocated,
            idle: Math.max(0, total - allocated),
            nodesTotal: r ? Number(r.nodes_total) : ct.nodes,
            nodesIdle: r ? Number(r.nodes_idle) : ct.nodes,
            queued: r ? Number(r.queued) : 0,
          };
        }),
        myRunning: running.filter((t) => t.sub_center_id === c.id).map((t) => this.myTask(c, t)),
      };
    });
    return { centers, sampleIntervalMs: this.opts.sampleIntervalMs };
  }

  async utilization(hours: number): Promise<UtilizationSeries> {
    const rows = await this.repo.since(this.clock() - hours * HOUR_MS);
    return {
      centers: this.centers.map((c) => {
        const byAt = new Map<number, { allocated: number; total: number }>();
        const accelerators = new Set(c.cardTypes.filter(isAccelerator).map((t) => t.id));
        for (const r of rows) {
          if (r.sub_center_id !== c.id || Number(r.online) !== 1 || !accelerators.has(r.card_type_id)) continue;
          const p = byAt.get(Number(r.at)) ?? { allocated: 0, total: 0 };
          p.allocated += Number(r.allocated);
          p.total += Number(r.total);
          byAt.set(Number(r.at), p);
        }
        const points = [...byAt.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([at, p]) => ({ at, allocated: p.allocated, total: p.total, utilization: p.total ? Math.round((p.allocated / p.total) * 1000) / 1000 : 0 }));
        return { subCenterId: c.id, subCenterName: c.name, points };
      }),
    };
  }

  async vendors(p: Principal): Promise<VendorCards> {
    const out = new Map<string, { total: number; allocated: number }>();
    for (const c of (await this.overview(p)).centers) {
      for (const ct of c.cardTypes.filter((x) => x.accelerator)) {
        const v = out.get(ct.vendor) ?? { total: 0, allocated: 0 };
        v.total += ct.total;
        v.allocated += ct.allocated;
        out.set(ct.vendor, v);
      }
    }
    return [...out.entries()].map(([vendor, v]) => ({ vendor, ...v })).sort((a, b) => b.total - a.total);
  }

  /** Card-hours the caller's tasks held per day (run time × cards), the last `days` days including today. */
  async cardHours(p: Principal, days: number): Promise<DailyCardHours> {
    const now = this.clock();
    const todayStart = Math.floor((now + DAY_OFFSET_MS) / DAY_MS) * DAY_MS - DAY_OFFSET_MS;
    const from = todayStart - (days - 1) * DAY_MS;
    const hours = new Array<number>(days).fill(0);
    for (const t of await this.usage.ranSince(p.userId, from)) {
      const cards = Number(t.card_num) * Math.max(1, Number(t.node_num));
      const start = Math.max(Number(t.start_time), from);
      const end = Math.min(t.end_time === null ? now : Number(t.end_time), now);
      for (let d = 0; d < days; d++) {
        const a = Math.max(start, from + d * DAY_MS);
        const b = Math.min(end, from + (d + 1) * DAY_MS);
        if (b > a) hours[d] += ((b - a) / HOUR_MS) * cards;
      }
    }
    return hours.map((h, d) => ({ day: new Date(from + d * DAY_MS + DAY_OFFSET_MS).toISOString().slice(0, 10), cardHours: Math.round(h * 100) / 100 }));
  }

  private myTask(c: CenterConfig, t: Awaited<ReturnType<TaskUsageRepository['running']>>[number]): MyRunningTask {
    return {
      id: t.id,
      kind: t.kind,
      type: t.type,
      name: t.name,
      state: t.state,
      cardTypeName: c.cardTypes.find((x) => x.id === t.card_type_id)?.name ?? t.card_type_id,
      cards: Number(t.card_num) * Math.max(1, Number(t.node_num)),
      startTime: t.start_time === null ? null : Number(t.start_time),
    };
  }
}
