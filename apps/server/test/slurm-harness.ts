import { execFile, execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/**
 * Two real Slurm clusters with accounting on loopback (two sub-centers) for the integration tier:
 * scripts/slurm/up.sh starts munged, then per cluster slurmdbd (on the machine's MariaDB), slurmctld,
 * slurmd (fake GPUs) and slurmrestd (JWT, openapi v0.0.38 + dbv0.0.38); scripts/slurm/down.sh removes it all.
 *
 * Used as the vitest globalSetup of the `server-slurm` project — one harness per worker of the project, each
 * with an account pool of its own; a file reaches its worker's harness with `workerSlurmHarness()`
 * (./slurm-worker.ts) — or directly with startSlurmHarness/stopSlurmHarness.
 */

export interface SlurmClusterInfo {
  /** Harness-local id: `a` or `b`. */
  id: string;
  /** Slurm's ClusterName (unique per run, lower case). */
  cluster: string;
  /** slurmrestd base URL (`/slurm/v0.0.38/...`, `/slurmdb/v0.0.38/...`). */
  restUrl: string;
  /** HS256 key slurmctld/slurmdbd verify JWTs with (32 random bytes). */
  jwtKeyFile: string;
  /** For the Slurm CLI in tests: `SLURM_CONF=<this> squeue ...`. */
  slurmConf: string;
  partitions: string[];
  /** Gres per node, e.g. `{name: 'gpu', type: 'a100', perNode: 2}` → request `gpu:a100:1`. */
  gres: { name: string; type: string; perNode: number }[];
  nodes: string[];
  /** Slurm account every cluster account is associated with. */
  account: string;
  /** The cluster accounts: real Linux users, `${prefix}${nnnn}` with uid uidStart + n - 1 (centers.yaml pools). */
  accounts: { prefix: string; uidStart: number; names: string[] };
  /** Homes are `${storageRoot}/home/<account>`, owned by the account. */
  storageRoot: string;
  /** The cluster's login node: an OpenSSH sshd on 127.0.0.1 (scripts/slurm/sshd.sh), public keys only. */
  sshPort: number;
}

export interface SlurmHarness {
  workDir: string;
  clusters: SlurmClusterInfo[];
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const upScript = path.join(repoRoot, 'scripts/slurm/up.sh');
const downScript = path.join(repoRoot, 'scripts/slurm/down.sh');
const DIR_PREFIX = 'suanli-slurm-';
const exitHooks = new Map<string, () => void>();
/** Loopback ports one harness's daemons listen on (up.sh: per cluster slurmdbd, slurmctld, slurmd, slurmrestd; then the sshds). */
const PORTS_PER_HARNESS = 10;
/** Apart in uid per slot (scripts/slurm/users.sh numbers a pool of SUANLI_SLURM_POOL accounts, 3 by default). */
const SLOT_UID_STEP = 100;

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** The JWT slurmrestd accepts for `user` (X-SLURM-USER-NAME/-TOKEN): HS256 over `{exp, iat, sun}`. */
export function mintSlurmJwt(key: Buffer, user: string, ttlSeconds = 600, now = Math.floor(Date.now() / 1000)): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify({ exp: now + ttlSeconds, iat: now, sun: user }));
  const sig = createHmac('sha256', key).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Headers authenticating `user` against a harness cluster's slurmrestd. */
export function slurmAuthHeaders(cluster: SlurmClusterInfo, user: string): Record<string, string> {
  return { 'X-SLURM-USER-NAME': user, 'X-SLURM-USER-TOKEN': mintSlurmJwt(fs.readFileSync(cluster.jwtKeyFile), user) };
}

function down(workDir: string): void {
  try {
    execFileSync('bash', [downScript, workDir], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
  } catch (e) {
    console.error(`slurm-harness: teardown of ${workDir} failed: ${(e as Error).message}`);
  }
}

/** down() without blocking: several harnesses are taken down side by side. */
function downAsync(workDir: string): Promise<void> {
  return new Promise((resolve) => {
    execFile('bash', [downScript, workDir], { timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err) console.error(`slurm-harness: teardown of ${workDir} failed: ${err.message}\n${stderr.trim()}`);
      resolve();
    });
  });
}

/** `n` distinct free loopback ports: all held open at once, so none is handed out twice. */
async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}

/**
 * The cluster account pools of harness slot `slot` (up.sh's SUANLI_SLURM_PREFIX_A/B, SUANLI_SLURM_UID_A/B).
 * Slot 0 is up.sh's default (`sla0001…` uid 61001…, `slb0001…` uid 62001…, or what those variables say);
 * slot k > 0 gets `sla<k>_0001…` with uids SLOT_UID_STEP·k further on. Each account's home is set machine-wide
 * (scripts/slurm/sshd.sh), so harnesses that run at the same time must be on different slots.
 */
export function slotPoolEnv(slot: number, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, prefix, uid] of [
    ['A', 'sla', 61001],
    ['B', 'slb', 62001],
  ] as const) {
    const basePrefix = env[`SUANLI_SLURM_PREFIX_${id}`] || prefix;
    const baseUid = Number(env[`SUANLI_SLURM_UID_${id}`]) || uid;
    out[`SUANLI_SLURM_PREFIX_${id}`] = slot ? `${basePrefix}${slot}_` : basePrefix;
    out[`SUANLI_SLURM_UID_${id}`] = String(baseUid + SLOT_UID_STEP * slot);
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A run killed before its teardown (SIGKILL, a crashed vitest) leaves daemons, databases and a work dir:
 * remove those whose owning process is gone, so they never pile up or break a later run. Harnesses of
 * runs still alive (other sessions on the same machine) are left alone.
 */
function sweepStale(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    let owner = 0;
    try {
      owner = Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8')) || 0;
    } catch {
      // no owner.pid yet
    }
    if (owner && alive(owner)) continue;
    // A directory without owner.pid is being created right now, or is a leftover of a crash in mkdtemp:
    // only sweep it when it is old.
    if (!owner && Date.now() - fs.statSync(dir).mtimeMs < 120_000) continue;
    console.error(`slurm-harness: removing the stale harness ${dir}`);
    down(dir);
  }
}

export interface SlurmHarnessOptions {
  /** Only these clusters (an e2e journey that needs one cluster spares the machine the other's daemons). */
  clusters?: ('a' | 'b')[];
  /** The account pools' slot (slotPoolEnv); default 0. Harnesses running at the same time need different slots. */
  slot?: number;
  /** 10 free loopback ports for the daemons (default: picked by up.sh). */
  ports?: number[];
}

/**
 * Starts both clusters (typically 12–20 s), or only those `opts.clusters` names. Throws with the failing
 * daemon's log tail; nothing is left behind.
 */
export async function startSlurmHarness(opts: SlurmHarnessOptions = {}): Promise<SlurmHarness> {
  if (process.getuid?.() !== 0) throw new Error('slurm-harness: the Slurm integration tier must run as root (it starts slurmd and creates the cluster accounts)');
  sweepStale();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  fs.writeFileSync(path.join(workDir, 'owner.pid'), String(process.pid));
  // Last resort for a run that ends without its teardown (an uncaught error in vitest's main process).
  const onExit = () => down(workDir);
  process.once('exit', onExit);
  exitHooks.set(workDir, onExit);
  try {
    await new Promise<void>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...slotPoolEnv(opts.slot ?? 0) };
      if (opts.clusters) env.SUANLI_SLURM_CLUSTERS = opts.clusters.join(' ');
      if (opts.ports) env.SUANLI_SLURM_PORTS = opts.ports.join(' ');
      execFile('bash', [upScript, workDir], { env, timeout: 120_000, maxBuffer: 1 << 20 }, (err, _stdout, stderr) => {
        if (err) reject(new Error(`scripts/slurm/up.sh failed (${err.code ?? err.signal}):\n${stderr.trim()}`));
        else resolve();
      });
    });
    const { clusters } = JSON.parse(fs.readFileSync(path.join(workDir, 'harness.json'), 'utf8')) as { clusters: SlurmClusterInfo[] };
    // Each slurmrestd must authenticate a minted token and reach its slurmctld before tests start.
    for (const c of clusters) await waitForRestd(c);
    return { workDir, clusters };
  } catch (e) {
    stopSlurmHarness({ workDir, clusters: [] });
    throw e;
  }
}

async function waitForRestd(c: SlurmClusterInfo, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const res = await fetch(`${c.restUrl}/slurm/v0.0.38/ping`, { headers: slurmAuthHeaders(c, c.accounts.names[0]) });
      const body = (await res.json()) as { pings?: { ping: string }[] };
      if (res.ok && body.pings?.[0]?.ping === 'UP') return;
      last = `HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`slurm-harness: slurmrestd of cluster ${c.id} (${c.restUrl}) does not answer a ping: ${last}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Drops the exit hook of a harness being torn down. */
function forget(workDir: string): void {
  const hook = exitHooks.get(workDir);
  if (hook) process.off('exit', hook);
  exitHooks.delete(workDir);
}

export function stopSlurmHarness(h: SlurmHarness): void {
  forget(h.workDir);
  down(h.workDir);
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** One harness per worker of the project: a file takes its worker's with workerSlurmHarness() (./slurm-worker.ts). */
    slurmHarnesses: SlurmHarness[];
  }
}

/** How many files of `project` run at once: vitest's own rule (resolveMaxWorkers), 1 without file parallelism. */
function workersOf(project: TestProject): number {
  return Math.max(1, project.config.maxWorkers || project.vitest.config.maxWorkers || 1);
}

/**
 * vitest globalSetup: one harness per worker of the project (each its own two clusters, daemons, databases, ports
 * and account pool — slots 1…n, so that a harness started directly, slot 0, can run beside them), started side by
 * side, torn down after the run. Files of the project run as many at a time: one file's jobs never fill the
 * cards another file expects free, and the Slurm waits of two files (one-minute time limits, MinJobAge) overlap.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const n = workersOf(project);
  const ports = await freePorts(PORTS_PER_HARNESS * n);
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => startSlurmHarness({ slot: i + 1, ports: ports.slice(i * PORTS_PER_HARNESS, (i + 1) * PORTS_PER_HARNESS) })),
  );
  const harnesses = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopAll = async () => {
    harnesses.forEach((h) => forget(h.workDir));
    await Promise.all(harnesses.map((h) => downAsync(h.workDir)));
  };
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  for (const h of harnesses) console.log(`slurm-harness: clusters ${h.clusters.map((c) => `${c.cluster} (${c.accounts.prefix}…)`).join(', ')} ready`);
  console.log(`slurm-harness: ${n} harness${n > 1 ? 'es' : ''} ready in ${Date.now() - started} ms`);
  project.provide('slurmHarnesses', harnesses);
  return stopAll;
}
