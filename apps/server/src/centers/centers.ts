import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export interface CenterCardType {
  id: string;
  name: string;
  vendor: string;
  memoryGB: number;
  nodes: number;
  cardsPerNode: number;
  cpusPerCard: number;
  memoryGBPerCard: number;
  /** Scheduler partition serving this card type. */
  partition: string;
}

export interface CenterConfig {
  id: string;
  name: string;
  region: string;
  description: string;
  status: 'online' | 'maintenance' | 'offline';
  loginHost: string;
  scheduler: { kind: 'local' | 'slurm'; [k: string]: unknown };
  /** Absolute path of this center's storage (homes live under `home/<account>`). */
  storageRoot: string;
  /**
   * Where homes are as the center's users see them (login node, jobs): `${homePrefix}/<account>`, what the
   * console shows. The gateway's own disk path (`storageRoot`) is never sent to a browser. Default `/home`.
   */
  homePrefix: string;
  /** Per-user storage quota on this center, bytes. */
  quotaBytes: number;
  /** Static pool of cluster accounts: `${prefix}${n}` with uid uidStart+n. */
  accounts: { prefix: string; uidStart: number; size: number };
  cardTypes: CenterCardType[];
  /** Set when the file service runs elsewhere; otherwise the gateway mounts one. */
  fileServiceUrl?: string;
}

/** Reads the centers file once at start; a broken file stops the process with the reason. */
export function loadCenters(file: string, dataDir: string): CenterConfig[] {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as { centers?: Record<string, unknown>[] };
  if (!doc?.centers?.length) throw new Error(`${file}: no centers defined`);
  const seen = new Set<string>();
  return doc.centers.map((c, i) => {
    const where = `${file}: centers[${i}]`;
    const id = String(c.id ?? '');
    if (!/^[a-z0-9-]{2,32}$/.test(id)) throw new Error(`${where}: id must match [a-z0-9-]{2,32}`);
    if (seen.has(id)) throw new Error(`${where}: duplicate id ${id}`);
    seen.add(id);
    const cardTypes = (c.cardTypes as CenterCardType[] | undefined) ?? [];
    if (!cardTypes.length) throw new Error(`${where}: no cardTypes`);
    const storageRoot = String(c.storageRoot ?? `centers/${id}`);
    const homePrefix = String(c.homePrefix ?? '/home').replace(/\/+$/, '');
    if (!homePrefix.startsWith('/')) throw new Error(`${where}: homePrefix must be an absolute path`);
    return {
      id,
      name: String(c.name ?? id),
      region: String(c.region ?? ''),
      description: String(c.description ?? ''),
      status: (c.status as CenterConfig['status']) ?? 'online',
      loginHost: String(c.loginHost ?? '127.0.0.1'),
      scheduler: (c.scheduler as CenterConfig['scheduler']) ?? { kind: 'local' },
      storageRoot: path.isAbsolute(storageRoot) ? storageRoot : path.join(dataDir, storageRoot),
      homePrefix,
      quotaBytes: Math.round(Number(c.quotaGB ?? 50) * 1024 ** 3),
      accounts: (c.accounts as CenterConfig['accounts']) ?? { prefix: `u${id.slice(0, 3)}`, uidStart: 20000, size: 1000 },
      cardTypes,
      fileServiceUrl: c.fileServiceUrl ? String(c.fileServiceUrl) : undefined,
    };
  });
}
