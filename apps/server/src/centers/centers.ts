/**
 * What the gateway and the file services know of each sub-center, as read from the centers file
 * (`centers-file.ts` checks and resolves it; these are the resolved shapes every module uses).
 */
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
  /**
   * 标准卡时 per card-hour of this type (default 1; at most 4 decimals): the console shows one normalised
   * total beside native card-hours (domain.md, ADR 0012 "标准卡时").
   */
  standardFactor?: number;
}

/** 标准卡时 factors have at most 4 decimals: × this, they are integers and the normalised total is exact. */
export const FACTOR_SCALE = 10_000;

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
  /**
   * A Slurm user with `AdminLevel=Operator` (or higher) the balance limits on the pool's associations are set
   * as (issue 25; its token comes from the same jwtKeyFile / tokenCommand). Unset: this center does not hold
   * jobs of accounts without compute power (the console's own gate still applies).
   */
  adminUser?: string;
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
   * a shell on the gateway's host (default for the embedded local scheduler; offered only with LOCAL_SHELL=true).
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
  /**
   * Absolute path of this center's storage on the center's own hosts — its file service, login node and compute
   * nodes: homes are `home/<account>` below it, the asset area `.assets/`, and every path a job is given is built
   * from it. On the gateway's host only when `storageAccess` is `local`.
   */
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
  /**
   * How the gateway's modules reach this center's storage (center-storage/, ADR 0016): `local` — the disk is
   * mounted on the gateway's host at `storageRoot` (the embedded default); `fileService` — only the center's
   * file service has it, and every operation is a call to `fileServiceUrl`. Default: `fileService` when
   * `fileServiceUrl` is set, else `local`.
   */
  storageAccess: 'local' | 'fileService';
}

/** The bank account an offline transfer goes to (`payment.offline` of the centers file; ADR 0012). */
export interface OfflinePayment {
  bankName: string;
  accountName: string;
  accountNo: string;
  note: string;
  /** How long an order waits for a transfer once the owner chose it (ms). */
  holdMs: number;
}
