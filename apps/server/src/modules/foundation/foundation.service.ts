import { DICTS, type DictEntry, type SubCenter, type SubCenterDetail } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { notFound } from '../../errors';
import type { CenterAvailability } from '../center/center.service';

/** Each center's status now, from the center module (operators change it in 运营管理 › 分中心). */
export type CenterStatuses = () => Promise<Map<string, CenterAvailability>>;

/**
 * Sub-centers and dictionaries. Centers come from the centers file, their status (正常 / 维护 / 下线 and the
 * notice) from the center module; `origin` is the browser-facing origin
 * of this gateway, used for file services it mounts itself (embedded default), so the URL works whichever
 * host name the user reached us by.
 */
export class FoundationService {
  constructor(
    private readonly centers: CenterConfig[],
    private readonly statuses: CenterStatuses,
  ) {}

  async list(origin: string): Promise<SubCenter[]> {
    const now = await this.statuses();
    return this.centers.map((c) => this.toSubCenter(c, origin, now.get(c.id)));
  }

  async detail(id: string, origin: string): Promise<SubCenterDetail> {
    const c = this.centers.find((x) => x.id === id);
    if (!c) throw notFound('算力分中心');
    const sub = this.toSubCenter(c, origin, (await this.statuses()).get(c.id));
    const total = sub.cardTypes.reduce((n, t) => n + t.total, 0);
    const free = sub.cardTypes.reduce((n, t) => n + t.available, 0);
    return {
      ...sub,
      partitions: c.cardTypes.map((t) => ({
        name: t.partition,
        cardTypeId: t.id,
        nodes: t.nodes,
        cardsPerNode: t.cardsPerNode,
        cpusPerCard: t.cpusPerCard,
        memoryGBPerCard: t.memoryGBPerCard,
      })),
      loginHost: c.loginHost,
      schedulerKind: c.scheduler.kind,
      utilization: total ? Math.round(((total - free) / total) * 1000) / 1000 : 0,
    };
  }

  /** An unknown name is an empty dictionary — also names every object inherits (`__proto__`, `toString`…). */
  dict(name: string): DictEntry[] {
    return Object.hasOwn(DICTS, name) ? DICTS[name] : [];
  }

  private toSubCenter(c: CenterConfig, origin: string, now: CenterAvailability | undefined): SubCenter {
    return {
      id: c.id,
      name: c.name,
      region: c.region,
      description: c.description,
      status: now?.status ?? c.status,
      notice: now?.notice ?? '',
      fileServiceUrl: c.fileServiceUrl ?? `${origin}/file-service/${c.id}`,
      // Cards in use are subtracted once the executors report them (training/slurm work).
      cardTypes: c.cardTypes.map((t) => ({
        id: t.id,
        name: t.name,
        vendor: t.vendor,
        memoryGB: t.memoryGB,
        total: t.nodes * t.cardsPerNode,
        available: t.nodes * t.cardsPerNode,
      })),
    };
  }
}
