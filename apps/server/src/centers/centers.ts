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
  /** Slurm gres `name:type` a card of this type is requested as (`gpu:a100`); absent for CPU-only types. */
  gres?: string;
  /** Compute packages (算力卡) this center sells for this card type; none: not for sale (ADR 0012). */
  packages?: CenterPackage[];
}

/** An accelerator (GPU/NPU/DCU) card type; false for a CPU-only one, whose "cards" are cores (counted in 核, not 张). */
export const isAccelerator = (ct: Pick<CenterCardType, 'memoryGB' | 'gres'>) => ct.memoryGB > 0 || Boolean(ct.gres);

/** One package: `cardHours` whole 卡时 for `price` 分, usable `validDays` from payment. Ids are unique across centers. */
export interface CenterPackage {
  id: string;
  name: string;
  cardHours: number;
  price: number;
  validDays: number;
}

/** The embedded default: process groups on this host against the simulated inventory of `cardTypes`. */
export interface LocalSchedulerConfig {
  kind: 'local';
}

/** A real Slurm cluster through slurmrestd (docs/operations/slurm-center.md, "Center keys"). */
export interface SlurmSchedulerConfig {
  kind: 'slurm';
  /** Slurm ClusterName (lower case). */
  cluster: string;
  restUrl: string;
  /** Which adapter shapes to use (executors/slurm). */
  apiVersion: 'v0.0.38';
  /** HS256 key the gateway mints per-account tokens with… */
  jwtKeyFile?: string;
  /** …or a command printing a token for the account appended as its last argument. */
  tokenCommand?: string[];
  /** The Slurm account the pool's users are associated with. */
  account: string;
}

export type SchedulerConfig = LocalSchedulerConfig | SlurmSchedulerConfig;

export interface CenterConfig {
  id: string;
  name: string;
  region: string;
  description: string;
  status: 'online' | 'maintenance' | 'offline';
  loginHost: string;
  /** SSH port of the login node (web shell, key pairs, develop tasks' SSH command). Default 22. */
  loginPort: number;
  /**
   * How the web shell reaches this center: `ssh` to the login node (default for Slurm centers) or `local`,
   * a shell on the gateway's host (default for the embedded local scheduler; offered on loopback only).
   */
  shell?: 'ssh' | 'local';
  /**
   * Fingerprint of the login node's host key as `ssh-keygen -lf` prints it (`SHA256:…`): the web shell
   * refuses a login node that shows another key. Unset: the first key shown is accepted.
   */
  loginHostKey?: string;
  scheduler: SchedulerConfig;
  /**
   * How an image is launched on this center: a command prefix with `{uri}` (e.g. `apptainer exec --nv {uri}`)
   * the job's command runs under. Absent: the image is recorded and the command runs on the host.
   */
  imageLauncher?: string;
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
  const seenPackages = new Set<string>();
  return doc.centers.map((c, i) => {
    const where = `${file}: centers[${i}]`;
    const id = String(c.id ?? '');
    if (!/^[a-z0-9-]{2,32}$/.test(id)) throw new Error(`${where}: id must match [a-z0-9-]{2,32}`);
    if (seen.has(id)) throw new Error(`${where}: duplicate id ${id}`);
    seen.add(id);
    const cardTypes = ((c.cardTypes as CenterCardType[] | undefined) ?? []).map((t, j) => ({
      ...t,
      packages: parsePackages((t as { packages?: unknown }).packages, `${where}.cardTypes[${j}]`, seenPackages),
    }));
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
      loginPort: Number(c.loginPort ?? 22),
      shell: c.shell === 'ssh' || c.shell === 'local' ? c.shell : undefined,
      loginHostKey: parseHostKey(c.loginHostKey, where),
      scheduler: parseScheduler(c.scheduler, where),
      imageLauncher: c.imageLauncher ? String(c.imageLauncher) : undefined,
      storageRoot: path.isAbsolute(storageRoot) ? storageRoot : path.join(dataDir, storageRoot),
      homePrefix,
      quotaBytes: Math.round(Number(c.quotaGB ?? 50) * 1024 ** 3),
      accounts: (c.accounts as CenterConfig['accounts']) ?? { prefix: `u${id.slice(0, 3)}`, uidStart: 20000, size: 1000 },
      cardTypes,
      fileServiceUrl: c.fileServiceUrl ? String(c.fileServiceUrl) : undefined,
    };
  });
}

function parsePackages(raw: unknown, where: string, seen: Set<string>): CenterPackage[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new Error(`${where}.packages must be a list`);
  const positiveInt = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0;
  return raw.map((p: Record<string, unknown>, k) => {
    const at = `${where}.packages[${k}]`;
    const id = String(p?.id ?? '');
    // An order names its package by id alone, so ids are unique across every center and card type.
    if (!/^[a-z0-9-]{2,64}$/.test(id)) throw new Error(`${at}: id must match [a-z0-9-]{2,64}`);
    if (seen.has(id)) throw new Error(`${at}: duplicate package id ${id}`);
    seen.add(id);
    if (!p.name) throw new Error(`${at}: name is required`);
    // Whole 卡时 and whole 分: the amount and the granted card-seconds are exact integers.
    for (const k of ['cardHours', 'price', 'validDays']) if (!positiveInt(p[k])) throw new Error(`${at}: ${k} must be a positive integer`);
    return { id, name: String(p.name), cardHours: Number(p.cardHours), price: Number(p.price), validDays: Number(p.validDays) };
  });
}

function parseHostKey(raw: unknown, where: string): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const v = String(raw);
  if (!/^SHA256:[A-Za-z0-9+/]{43}$/.test(v)) throw new Error(`${where}: loginHostKey must be a SHA256:… fingerprint as ssh-keygen -lf prints it`);
  return v;
}

function parseScheduler(raw: unknown, where: string): SchedulerConfig {
  const s = (raw ?? { kind: 'local' }) as Record<string, unknown>;
  if (s.kind === 'local') return { kind: 'local' };
  if (s.kind !== 'slurm') throw new Error(`${where}: scheduler.kind must be local or slurm`);
  for (const k of ['cluster', 'restUrl', 'account']) if (!s[k]) throw new Error(`${where}: scheduler.${k} is required for slurm`);
  if (!s.jwtKeyFile && !s.tokenCommand) throw new Error(`${where}: scheduler needs jwtKeyFile or tokenCommand`);
  const apiVersion = String(s.apiVersion ?? 'v0.0.38');
  if (apiVersion !== 'v0.0.38') throw new Error(`${where}: scheduler.apiVersion ${apiVersion} has no adapter (supported: v0.0.38)`);
  return {
    kind: 'slurm',
    cluster: String(s.cluster).toLowerCase(),
    restUrl: String(s.restUrl).replace(/\/+$/, ''),
    apiVersion,
    jwtKeyFile: s.jwtKeyFile ? String(s.jwtKeyFile) : undefined,
    tokenCommand: Array.isArray(s.tokenCommand) ? s.tokenCommand.map(String) : undefined,
    account: String(s.account),
  };
}
