import { DICTS, type DictEntry, type SubCenter, type SubCenterDetail } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { notFound } from '../../errors';

/**
 * Sub-centers and dictionaries. Centers come from the centers file; `origin` is the browser-facing origin
 * of this gateway, used for file services it mounts itself (embedded default), so the URL works whichever
 * host name the user reached us by.
 */
export class FoundationService {
  constructor(private readonly centers: CenterConfig[]) {}

  list(origin: string): SubCenter[] {
    return this.centers.map((c) => this.toSubCenter(c, origin));
  }

  detail(id: string, origin: string): SubCenterDetail {
    const c = this.centers.find((x) => x.id === id);
    if (!c) throw notFound('算力分中心');
    const sub = this.toSubCenter(c, origin);
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

  private toSubCenter(c: CenterConfig, origin: string): SubCenter {
    return {
      id: c.id,
      name: c.name,
      region: c.region,
      description: c.description,
      status: c.status,
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
