import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import YAML from 'yaml';
import type { ImageItem } from '@suanli/contracts';
import { checkConfig, ConfigError, type Expectation } from '../lib/config-check';
import { FACTOR_SCALE, type CenterCardType, type CenterConfig, type OfflinePayment, type SchedulerConfig } from './centers';

/*
 * The centers file (CENTERS_FILE, default config/centers.yaml): the deployment's sub-centers, the offline
 * payment account and the public image catalogue. One schema says what the file may contain; `loadCentersFile`
 * reads it once per process (the gateway's buildApp, the standalone file service's main) and every reader
 * takes its part from the result. Defaults are applied there, after the check, and named in the schema's
 * descriptions.
 */

const Text = (o: Expectation & { description?: string } = {}) => Type.String({ minLength: 1, ...o });
const Pattern = (pattern: string, expected: string, description?: string) => Type.String({ pattern, expected, description });
const HttpUrl = (description?: string) => Pattern('^https?://[^\\s/]+', 'an http:// or https:// URL', description);
const Strict = { additionalProperties: false } as const;

const PackageSchema = Type.Object(
  {
    // An order names its package by id alone, so ids are unique across every center and card type.
    id: Pattern('^[a-z0-9-]{2,64}$', 'lower-case letters, digits and -, 2 to 64 of them', 'unique across the whole file'),
    name: Text(),
    // Whole 卡时 and whole 分: the amount and the granted card-seconds are exact integers.
    cardHours: Type.Integer({ minimum: 1, description: '卡时 granted' }),
    price: Type.Integer({ minimum: 1, description: 'price in 分' }),
    validDays: Type.Integer({ minimum: 1, description: 'usable for this many days from payment' }),
  },
  Strict,
);

const CardTypeSchema = Type.Object(
  {
    // The same id means the same card on every center (the image catalogue filters by its vendor).
    id: Pattern('^[a-z0-9][a-z0-9._-]{0,63}$', 'lower-case letters, digits, ., _ and - (at most 64)'),
    name: Text(),
    vendor: Text({ description: 'matched against the images’ cardVendors' }),
    memoryGB: Type.Number({ minimum: 0, description: 'memory of one card; 0 for CPU-only types' }),
    nodes: Type.Integer({ minimum: 1 }),
    cardsPerNode: Type.Integer({ minimum: 1 }),
    cpusPerCard: Type.Integer({ minimum: 1 }),
    memoryGBPerCard: Type.Number({ exclusiveMinimum: 0 }),
    partition: Text({ description: 'scheduler partition serving this card type' }),
    gres: Type.Optional(Pattern('^[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)?$', 'a Slurm gres name:type such as gpu:a100', 'absent for CPU-only types')),
    packages: Type.Optional(Type.Array(PackageSchema, { description: 'compute packages on sale; none: not for sale' })),
    // 标准卡时: one card-hour of this type counts as this many standard card-hours in the normalised total
    // the console shows beside native card-hours (domain.md). Up to 4 decimals (crossChecks), so the total
    // is computed in integers.
    standardFactor: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: '标准卡时 per card-hour of this type; default 1' })),
  },
  Strict,
);

const SchedulerSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('local'), Type.Literal('slurm')]),
    cluster: Type.Optional(Text({ description: 'slurm: ClusterName (compared lower case)' })),
    restUrl: Type.Optional(HttpUrl('slurm: slurmrestd')),
    apiVersion: Type.Optional(Type.Literal('v0.0.38', { expected: 'v0.0.38 (the only slurmrestd adapter there is)' })),
    jwtKeyFile: Type.Optional(Text({ description: 'slurm: HS256 key the gateway mints per-account tokens with' })),
    tokenCommand: Type.Optional(Type.Array(Text(), { minItems: 1, description: 'slurm: prints a token for the account appended' })),
    account: Type.Optional(Text({ description: 'slurm: the Slurm account of the pool' })),
    adminUser: Type.Optional(Pattern('^[a-z_][a-z0-9_.-]{0,31}$', 'a POSIX user name', 'slurm: the Slurm operator user the balance limits are set as (unset: no limits)')),
  },
  Strict,
);
const SLURM_KEYS = ['cluster', 'restUrl', 'apiVersion', 'jwtKeyFile', 'tokenCommand', 'account', 'adminUser'] as const;

const CenterSchema = Type.Object(
  {
    id: Pattern('^[a-z0-9-]{2,32}$', 'lower-case letters, digits and -, 2 to 32 of them'),
    name: Type.Optional(Text({ description: 'default: the id' })),
    region: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    status: Type.Optional(Type.Union([Type.Literal('online'), Type.Literal('maintenance'), Type.Literal('offline')], { description: 'default online' })),
    loginHost: Type.Optional(Text({ description: 'default 127.0.0.1' })),
    loginPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'default 22' })),
    shell: Type.Optional(Type.Union([Type.Literal('ssh'), Type.Literal('local')], { description: 'default: ssh for Slurm centers, local for the local scheduler' })),
    loginHostKey: Type.Optional(Pattern('^SHA256:[A-Za-z0-9+/]{43}$', 'a SHA256:… fingerprint as ssh-keygen -lf prints it')),
    scheduler: Type.Optional(SchedulerSchema),
    imageLauncher: Type.Optional(Pattern('\\{uri\\}', 'a command with {uri} where the image goes (e.g. apptainer exec --nv {uri})')),
    storageRoot: Type.Optional(
      Text({ description: 'where the storage is on the center’s hosts (file service, nodes: the paths jobs get); relative to DATA_DIR unless absolute; default centers/<id>' }),
    ),
    homePrefix: Type.Optional(Pattern('^(/[^/]+)+/*$', 'an absolute path such as /home', 'default /home')),
    quotaGB: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'per-user storage quota; default 50' })),
    accounts: Type.Optional(
      Type.Object(
        {
          prefix: Pattern('^[a-z_][a-z0-9_-]{0,27}$', 'a Linux user-name prefix (lower case, at most 28 characters)'),
          uidStart: Type.Integer({ minimum: 1 }),
          size: Type.Integer({ minimum: 1 }),
        },
        { ...Strict, description: 'default: prefix u<first 3 letters of the id>, uidStart 20000, size 1000' },
      ),
    ),
    cardTypes: Type.Array(CardTypeSchema, { minItems: 1 }),
    fileServiceUrl: Type.Optional(HttpUrl('set when the file service runs elsewhere; otherwise the gateway mounts one')),
    storageAccess: Type.Optional(
      Type.Union([Type.Literal('local'), Type.Literal('fileService')], {
        description:
          'how the gateway reaches this center’s storage: local — mounted on its host at storageRoot; fileService — only through the file service at fileServiceUrl. Default: fileService when fileServiceUrl is set, else local',
      }),
    ),
  },
  Strict,
);

const OfflinePaymentSchema = Type.Object(
  {
    bankName: Text(),
    accountName: Text(),
    accountNo: Text(),
    note: Text(),
    holdHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 24 * 30, description: 'default 24' })),
  },
  Strict,
);

const ImageSchema = Type.Object(
  {
    id: Text(),
    name: Type.Optional(Text({ description: 'default: the id' })),
    framework: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    accelerator: Type.Optional(Type.String()),
    cardVendors: Type.Optional(Type.Array(Text())),
    uri: Text({ description: 'what a center’s imageLauncher receives' }),
    description: Type.Optional(Type.String()),
  },
  Strict,
);

export const CentersFileSchema = Type.Object(
  {
    centers: Type.Array(CenterSchema, { minItems: 1 }),
    payment: Type.Optional(Type.Object({ offline: Type.Optional(OfflinePaymentSchema) }, Strict)),
    images: Type.Optional(Type.Array(ImageSchema, { description: 'the public image catalogue' })),
  },
  Strict,
);
export type CentersFileDoc = Static<typeof CentersFileSchema>;

/** The centers file, checked and resolved. */
export interface CentersFile {
  centers: CenterConfig[];
  /** `payment.offline`: absent, the offline transfer is not offered. */
  offlinePayment?: OfflinePayment;
  /** The public image catalogue (公共镜像). */
  images: ImageItem[];
}

/**
 * Reads, checks and resolves the centers file. Any mistake stops the start: a ConfigError names the file and
 * every wrong field (`centers[1].cardTypes[0].cardsPerNode must be an integer ≥ 1`). Relative storage roots
 * are resolved against `dataDir`.
 */
export function loadCentersFile(file: string, dataDir: string): CentersFile {
  return resolveCentersFile(parseCentersFile(file), dataDir);
}

/** The file's document, checked against the schema and the rules across entries. */
export function parseCentersFile(file: string): CentersFileDoc {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, [`cannot be read (${(e as Error).message}); CENTERS_FILE names it`]);
  }
  let raw: unknown;
  try {
    raw = parsedYaml(text);
  } catch (e) {
    throw new ConfigError(file, [`is not valid YAML: ${(e as Error).message}`]);
  }
  const doc = checkConfig(CentersFileSchema, withoutNulls(CentersFileSchema, raw ?? {}), file);
  const issues = crossChecks(doc);
  if (issues.length) throw new ConfigError(file, issues);
  return doc;
}

let lastYaml: { text: string; raw: unknown } | null = null;

/**
 * The YAML of a text, remembered for the last text parsed: each app built in a process reads the same file
 * again (a test process builds hundreds, and parsing the centers file was ~6 % of building one; issue 26). A
 * copy every time, as the checks below may fill in defaults. A different text is parsed as before.
 */
function parsedYaml(text: string): unknown {
  if (lastYaml?.text !== text) lastYaml = { text, raw: YAML.parse(text) as unknown };
  return structuredClone(lastYaml.raw);
}

/**
 * `key:` with nothing after it is YAML's null: for a field the schema knows, the same as leaving it out. An
 * unknown key keeps its null so that it is still reported (a comma in a flow mapping makes one: `{ name: A
 * (b, c) }` has a key `c)` with no value).
 */
function withoutNulls(schema: TSchema, v: unknown): unknown {
  const s = schema as TSchema & { properties?: Record<string, TSchema>; items?: TSchema };
  if (Array.isArray(v)) return s.items ? v.map((x) => withoutNulls(s.items!, x)) : v;
  if (!v || typeof v !== 'object' || !s.properties) return v;
  const known = s.properties;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k, x]) => !(x === null && k in known))
      .map(([k, x]) => [k, k in known ? withoutNulls(known[k], x) : x]),
  );
}

/** What one entry's schema cannot say: unique ids, the keys a Slurm scheduler needs. */
function crossChecks(doc: CentersFileDoc): string[] {
  const issues: string[] = [];
  const firstAt = new Map<string, string>();
  const unique = (kind: string, id: string, at: string) => {
    const first = firstAt.get(`${kind}\0${id}`);
    if (first) issues.push(`${at}.id ${id} is already the id of ${first}`);
    else firstAt.set(`${kind}\0${id}`, at);
  };
  doc.centers.forEach((c, i) => {
    const at = `centers[${i}]`;
    unique('center', c.id, at);
    c.cardTypes.forEach((t, j) => {
      unique(`card type of ${at}`, t.id, `${at}.cardTypes[${j}]`);
      t.packages?.forEach((p, k) => unique('package', p.id, `${at}.cardTypes[${j}].packages[${k}]`));
      if (t.standardFactor !== undefined && !hasFactorPrecision(t.standardFactor))
        issues.push(`${at}.cardTypes[${j}].standardFactor must have at most 4 decimals (got ${t.standardFactor})`);
    });
    if (c.storageAccess === 'fileService' && !c.fileServiceUrl) issues.push(`${at}.storageAccess fileService needs ${at}.fileServiceUrl (the gateway reaches this center's storage only through its file service)`);
    const s = c.scheduler;
    if (s?.kind === 'slurm') {
      for (const k of ['cluster', 'restUrl', 'account'] as const) if (!s[k]) issues.push(`${at}.scheduler.${k} is required for kind: slurm`);
      if (!s.jwtKeyFile && !s.tokenCommand) issues.push(`${at}.scheduler needs jwtKeyFile or tokenCommand for kind: slurm`);
    } else if (s) {
      for (const k of SLURM_KEYS) if (s[k] !== undefined) issues.push(`${at}.scheduler.${k} is only for kind: slurm`);
    }
  });
  doc.images?.forEach((img, i) => unique('image', img.id, `images[${i}]`));
  return issues;
}

/** Whether a 标准卡时 factor is a whole number of ten-thousandths (FACTOR_SCALE in centers.ts). */
function hasFactorPrecision(f: number): boolean {
  return Math.abs(f * FACTOR_SCALE - Math.round(f * FACTOR_SCALE)) < 1e-6;
}

function resolveCentersFile(doc: CentersFileDoc, dataDir: string): CentersFile {
  const offline = doc.payment?.offline;
  return {
    centers: doc.centers.map((c) => resolveCenter(c, dataDir)),
    offlinePayment: offline && {
      bankName: offline.bankName,
      accountName: offline.accountName,
      accountNo: offline.accountNo,
      note: offline.note,
      holdMs: Math.round((offline.holdHours ?? 24) * 3600_000),
    },
    images: (doc.images ?? []).map((x) => ({
      id: x.id,
      name: x.name ?? x.id,
      framework: x.framework ?? '',
      version: x.version ?? '',
      accelerator: x.accelerator ?? '',
      cardVendors: x.cardVendors ?? [],
      uri: x.uri,
      description: x.description ?? '',
      visibility: 'public' as const,
    })),
  };
}

function resolveCenter(c: CentersFileDoc['centers'][number], dataDir: string): CenterConfig {
  const storageRoot = c.storageRoot ?? `centers/${c.id}`;
  return {
    id: c.id,
    name: c.name ?? c.id,
    region: c.region ?? '',
    description: c.description ?? '',
    status: c.status ?? 'online',
    loginHost: c.loginHost ?? '127.0.0.1',
    loginPort: c.loginPort ?? 22,
    shell: c.shell,
    loginHostKey: c.loginHostKey,
    scheduler: resolveScheduler(c.scheduler),
    imageLauncher: c.imageLauncher,
    storageRoot: path.isAbsolute(storageRoot) ? storageRoot : path.join(dataDir, storageRoot),
    homePrefix: (c.homePrefix ?? '/home').replace(/\/+$/, ''),
    quotaBytes: Math.round((c.quotaGB ?? 50) * 1024 ** 3),
    accounts: c.accounts ?? { prefix: `u${c.id.slice(0, 3)}`, uidStart: 20000, size: 1000 },
    cardTypes: c.cardTypes.map((t): CenterCardType => ({ ...t, packages: t.packages ?? [], standardFactor: t.standardFactor ?? 1 })),
    fileServiceUrl: c.fileServiceUrl,
    storageAccess: c.storageAccess ?? (c.fileServiceUrl ? 'fileService' : 'local'),
  };
}

function resolveScheduler(s: CentersFileDoc['centers'][number]['scheduler']): SchedulerConfig {
  if (!s || s.kind === 'local') return { kind: 'local' };
  // crossChecks made sure a Slurm scheduler has these.
  return {
    kind: 'slurm',
    cluster: s.cluster!.toLowerCase(),
    restUrl: s.restUrl!.replace(/\/+$/, ''),
    apiVersion: 'v0.0.38',
    jwtKeyFile: s.jwtKeyFile,
    tokenCommand: s.tokenCommand,
    account: s.account!,
    adminUser: s.adminUser,
  };
}
