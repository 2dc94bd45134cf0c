import {
  ErrorCode,
  WS_CENTER_CHANGED,
  formatYuan,
  type AdminCenter,
  type CenterPackage,
  type CenterPackagesBody,
  type CenterStatusBody,
  type SubCenterStatus,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, invalid, notFound } from '../../errors';
import { newId } from '../../lib/id';
import { EVERYONE, type EventBus } from '../../realtime/bus';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { CenterPackageRow, CenterRepository, CenterSeed, CenterStateRow } from './center.repository';

/** A center's status as the platform uses it now, and what users are told while it is not 正常. */
/** Every center's status now, as operators set it (what lists, placement and dashboards show). */
export type CenterStates = () => Promise<Map<string, CenterAvailability>>;

export interface CenterAvailability {
  status: SubCenterStatus;
  notice: string;
}

const asStatus = (s: string): SubCenterStatus => (s === 'maintenance' || s === 'offline' ? s : 'online');

/** `元.角分` → 分, exactly (the schema's pattern guarantees the shape). */
const toFen = (yuan: string) => {
  const [whole, cents] = yuan.split('.');
  return Number(whole) * 100 + Number(cents);
};

/**
 * 分中心 for operators (issue 20): each center's status (正常 / 维护 / 下线) with a notice, and the packages it
 * sells with their prices — rows of the database, the centers file only their first value. Every change is
 * an audited operator action in its own transaction, then a live event to everyone. The rest of the platform
 * asks through narrow ports: the task engine `requireOpen` before a submit, the order module `forSale` and
 * `sellable` for 购买算力, the foundation module `availability` for the users' center lists. Each read goes
 * to the database, so every gateway replica answers the same the moment a change commits.
 */
export class CenterService {
  private readonly centers: Map<string, CenterConfig>;

  constructor(
    private readonly repo: CenterRepository,
    centers: CenterConfig[],
    private readonly access: Pick<AccessService, 'require'>,
    private readonly audit: AuditTrail,
    private readonly bus: EventBus,
    private readonly clock: () => number,
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /** The centers file's status and packages of every center the database does not know yet. */
  seed(): Promise<void> {
    const seeds: CenterSeed[] = [...this.centers.values()].map((c) => ({
      id: c.id,
      status: c.status,
      packages: c.cardTypes
        .flatMap((t) => (t.packages ?? []).map((p) => ({ t, p })))
        .map(({ t, p }, sort) => ({ id: p.id, center_id: c.id, card_type_id: t.id, name: p.name, card_hours: p.cardHours, price: p.price, valid_days: p.validDays, sort })),
    }));
    return this.repo.seed(seeds, this.clock());
  }

  // ---- ports --------------------------------------------------------------------------------------------

  /** Every center's status now (a center the table lacks — not possible after `seed` — reads as the file says). */
  async availability(): Promise<Map<string, CenterAvailability>> {
    const rows = await this.repo.states();
    const byId = new Map(rows.map((r) => [r.center_id, r]));
    return new Map(
      [...this.centers.values()].map((c) => {
        const r = byId.get(c.id);
        return [c.id, r ? { status: asStatus(r.status), notice: r.notice } : { status: c.status, notice: '' }];
      }),
    );
  }

  /**
   * Refuses (2012 维护, 2013 下线) anything new on a center that is not 正常 — a submit of any kind, an order,
   * a payment — with a text naming the center and the operators' notice. Running tasks are not asked.
   */
  async requireOpen(centerId: string): Promise<void> {
    const c = this.centers.get(centerId);
    const r = await this.repo.state(centerId);
    const status = r ? asStatus(r.status) : (c?.status ?? 'online');
    if (status === 'online') return;
    const name = c?.name ?? centerId;
    const notice = r?.notice ? `公告：${r.notice}` : '';
    throw status === 'maintenance'
      ? new AppError(ErrorCode.CENTER_IN_MAINTENANCE, `${name}维护中，暂停提交任务和购买算力。${notice}`)
      : new AppError(ErrorCode.CENTER_OFFLINE, `${name}已下线，暂停提交任务和购买算力。${notice}`);
  }

  /** The packages a center sells now: none while it is not 正常; only of card types the centers file still has. */
  async forSale(centerId: string): Promise<CenterPackageRow[]> {
    const c = this.centers.get(centerId);
    if (!c) return [];
    const state = await this.repo.state(centerId);
    if (state && asStatus(state.status) !== 'online') return [];
    return (await this.repo.packages(centerId)).filter((p) => c.cardTypes.some((t) => t.id === p.card_type_id));
  }

  /** One package by id, whatever its center's status (the caller asks `requireOpen`); absent when unknown. */
  async sellable(packageId: string): Promise<CenterPackageRow | undefined> {
    const p = await this.repo.package(packageId);
    const c = p && this.centers.get(p.center_id);
    return c?.cardTypes.some((t) => t.id === p!.card_type_id) ? p : undefined;
  }

  // ---- 运营管理 › 分中心 ------------------------------------------------------------------------------------

  async list(p: Principal): Promise<AdminCenter[]> {
    this.access.require(p, 'center.manage');
    const [states, packages] = await Promise.all([this.repo.states(), this.repo.packages()]);
    const byId = new Map(states.map((s) => [s.center_id, s]));
    return [...this.centers.values()].map((c) => this.view(c, byId.get(c.id), packages.filter((x) => x.center_id === c.id)));
  }

  async setStatus(p: Principal, id: string, body: CenterStatusBody, ip: string | null): Promise<AdminCenter> {
    this.access.require(p, 'center.manage');
    const c = this.center(id);
    const notice = body.notice.trim();
    // Users read the notice in every refusal: 维护 and 下线 must say something.
    if (body.status !== 'online' && !notice) throw invalid('notice', '设置为维护或下线时须填写公告');
    const actor = await this.audit.operator(p, ip);
    const before = await this.repo.setState(id, { status: body.status, notice }, this.clock(), (tx, was) =>
      this.audit.record(tx, {
        actor,
        action: 'center.status',
        target: { type: 'center', id, name: c.name },
        before: { status: was.status, notice: was.notice },
        after: { status: body.status, notice },
        reason: body.reason,
      }),
    );
    if (before === null) throw new AppError(ErrorCode.ADMIN_CENTER_STATE);
    if (before === 'conflict') throw new AppError(ErrorCode.UPDATE_FAILED, '分中心状态刚被其他运营人员修改，请刷新后重试');
    // After the commit: every open console re-reads its center lists and 购买算力.
    await this.bus.publish(EVERYONE, { businessType: WS_CENTER_CHANGED, data: { id, status: body.status, notice } });
    return this.viewOf(c);
  }

  async setPackages(p: Principal, id: string, body: CenterPackagesBody, ip: string | null): Promise<AdminCenter> {
    this.access.require(p, 'center.manage');
    const c = this.center(id);
    const current = new Set((await this.repo.packages(id)).map((x) => x.id));
    const now = this.clock();
    const rows: CenterPackageRow[] = body.packages.map((x, i) => {
      const field = `packages[${i}]`;
      if (x.id !== undefined && !current.has(x.id)) throw invalid(`${field}.id`, '不是该分中心的算力卡');
      if (!c.cardTypes.some((t) => t.id === x.cardTypeId)) throw invalid(`${field}.cardTypeId`, '该分中心没有此卡型');
      const name = x.name.trim();
      if (!name) throw invalid(`${field}.name`, '名称不能为空');
      const price = toFen(x.price);
      if (price <= 0) throw invalid(`${field}.price`, '价格须大于 0');
      return { id: x.id ?? newId(now), center_id: id, card_type_id: x.cardTypeId, name, card_hours: x.cardHours, price, valid_days: x.validDays, sort: i };
    });
    const ids = rows.map((r) => r.id);
    if (new Set(ids).size !== ids.length) throw invalid('packages', '同一算力卡出现了两次');
    const actor = await this.audit.operator(p, ip);
    const before = await this.repo.replacePackages(id, rows, now, (tx, was) =>
      this.audit.record(tx, {
        actor,
        action: 'center.packages',
        target: { type: 'center', id, name: c.name },
        before: { packages: was.map(toPackage) },
        after: { packages: rows.map(toPackage) },
        reason: body.reason,
      }),
    );
    if (before === null) throw new AppError(ErrorCode.ADMIN_CENTER_STATE, '算力卡与价格没有变化');
    return this.viewOf(c);
  }

  private center(id: string): CenterConfig {
    const c = this.centers.get(id);
    if (!c) throw notFound('算力分中心');
    return c;
  }

  private async viewOf(c: CenterConfig): Promise<AdminCenter> {
    const [state, packages] = await Promise.all([this.repo.state(c.id), this.repo.packages(c.id)]);
    return this.view(c, state, packages);
  }

  private view(c: CenterConfig, state: CenterStateRow | undefined, packages: CenterPackageRow[]): AdminCenter {
    return {
      id: c.id,
      name: c.name,
      region: c.region,
      status: state ? asStatus(state.status) : c.status,
      notice: state?.notice ?? '',
      updateTime: state?.update_time === null || state?.update_time === undefined ? null : Number(state.update_time),
      cardTypes: c.cardTypes.map((t) => ({ id: t.id, name: t.name })),
      packages: packages.map(toPackage),
    };
  }
}

function toPackage(r: CenterPackageRow): CenterPackage {
  return { id: r.id, cardTypeId: r.card_type_id, name: r.name, cardHours: Number(r.card_hours), price: formatYuan(Number(r.price)), validDays: Number(r.valid_days) };
}
