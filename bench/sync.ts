// bench/sync: a 1 GiB folder synced between the two demo centers' standalone file services (each its own
// process, the gateway a third one), in the same run and rotating order against (issue 26):
// - plain HTTP: the files streamed by one HTTP PUT each into another process writing them (goal: sync ≥ 0.9×);
// - `rsync -a -e ssh` between the two storage roots through an sshd on loopback (what OpenSCOW's sync runs;
//   goal: sync ≥ 2× faster);
// and three floors: the same PUTs read and dropped (the socket alone — no transfer between processes can be
// faster), one SHA-256 pass over the files in this process (a checksummed copy hashes every byte at least
// once, whatever carries it), and `cp -r` on the same disk (issue 11's baseline, wrong for a network copy:
// kept as a footnote column). All share the machine's two cores and one disk.
// Run: npm run sync -w bench    (BENCH_SYNC_MB=1024, BENCH_SYNC_FILES=4, BENCH_ROUNDS=3; BENCH_CPU_PROF=<dir> profiles both file services)
import { createHash, randomFillSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { SYNC_BASE, USER_BASE, type SyncJob } from '@suanli/contracts';
import { freePort, startJsonProcess, stop } from './support/proc';
import { cpuOf, prepareRun } from './support/run-prep';
import { startLoopbackSshd } from './support/sshd';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_SYNC_MB ?? 1024);
const FILES = Number(process.env.BENCH_SYNC_FILES ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const here = import.meta.dirname;
const root = path.resolve(here, '..');
const CENTERS = ['sz-a100', 'gz-ascend'] as const;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-bench-sync-'));
const log = (...a: unknown[]) => console.log(`[sync-bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

// Both centers with their own file service on a fixed loopback port (production shape).
const ports = { 'sz-a100': await freePort(), 'gz-ascend': await freePort() };
let yaml = fs.readFileSync(path.join(root, 'config/centers.yaml'), 'utf8');
for (const c of CENTERS) yaml = yaml.replace(`  - id: ${c}\n`, `  - id: ${c}\n    fileServiceUrl: http://127.0.0.1:${ports[c]}\n`);
const centersFile = path.join(dataDir, 'centers.yaml');
fs.writeFileSync(centersFile, yaml);

const gw = await startJsonProcess<{ port: number; token: string }>(process.execPath, ['--import', 'tsx', path.join(here, 'support/gateway.ts')], {
  BENCH_DATA_DIR: dataDir,
  CENTERS_FILE: centersFile,
});
const gatewayUrl = `http://127.0.0.1:${gw.info.port}`;
const token = gw.info.token;

const fileServices = new Map<string, ChildProcess>();
for (const c of CENTERS) {
  const { child } = await startJsonProcess(
    process.execPath,
    [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), '--import', 'tsx', path.join(root, 'apps/server/src/file-service/main.ts')],
    { CENTER_ID: c, CENTERS_FILE: centersFile, DATA_DIR: dataDir, GATEWAY_URL: gatewayUrl, HOST: '127.0.0.1', PORT: String(ports[c]), LOG_LEVEL: 'info' },
    (line) => line.includes('file service of'),
  );
  fileServices.set(c, child);
}

const api = async <T>(method: string, url: string, payload?: object): Promise<T> => {
  const res = await fetch(`${gatewayUrl}${url}`, { method, headers: { token, 'content-type': 'application/json' }, body: payload ? JSON.stringify(payload) : undefined });
  const env = (await res.json()) as { message: { code: number; message: string }; data: T };
  if (env.message.code !== 0) throw new Error(`${url}: ${env.message.code} ${env.message.message}`);
  return env.data;
};
const homeOf = async (c: string) => {
  const accounts = await api<{ subCenterId: string; account: string }[]>('GET', `${USER_BASE}/agent/user/get?subCenterId=${c}`);
  return path.join(dataDir, 'centers', c, 'home', accounts.find((a) => a.subCenterId === c)!.account);
};
const srcHome = await homeOf('sz-a100');
const dstHome = await homeOf('gz-ascend');
const src = path.join(srcHome, 'corpus');
fs.mkdirSync(src, { recursive: true });
fs.mkdirSync(dstHome, { recursive: true });

log(`writing ${SIZE_MB} MiB of random data in ${FILES} files`);
const block = Buffer.alloc(MB);
const hashes = new Map<string, string>();
for (let i = 0; i < FILES; i++) {
  const name = `part-${i}.bin`;
  const h = createHash('sha256');
  const fd = fs.openSync(path.join(src, name), 'w');
  for (let j = 0; j < SIZE_MB / FILES; j++) {
    randomFillSync(block);
    h.update(block);
    fs.writeSync(fd, block);
  }
  fs.closeSync(fd);
  hashes.set(name, h.digest('hex'));
}

const sha256File = (file: string) => {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    for (let n; (n = fs.readSync(fd, block, 0, MB, null)) > 0; ) h.update(block.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
};

// Same preparation as bench/upload (support/run-prep.ts); the sides rotate which goes first.

function plainCopy(): number {
  const out = path.join(srcHome, 'plain-copy');
  const t0 = performance.now();
  execFileSync('cp', ['-r', src, out]);
  const sec = (performance.now() - t0) / 1000;
  fs.rmSync(out, { recursive: true, force: true });
  return sec;
}

/** One SHA-256 pass over the folder: the least a copy that checks its bytes must do besides moving them. */
function hashOnly(): number {
  const t0 = performance.now();
  for (const name of hashes.keys()) sha256File(path.join(src, name));
  return (performance.now() - t0) / 1000;
}

// rsync over SSH between the two storage roots: the client rsync reads the source center's folder, the
// server rsync (started by sshd for the login) writes into the target center's home.
const sshd = await startLoopbackSshd(path.join(dataDir, 'sshd'));
/** CPU seconds of a process's reaped children (cutime + cstime from /proc). */
const childCpuOf = (pid: number | 'self') => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
};
function rsyncCopy(): { sec: number; cpuSec: number } {
  const out = path.join(dstHome, 'rsync-copy');
  fs.mkdirSync(out, { recursive: true });
  const cpu0 = childCpuOf('self') + childCpuOf(sshd.pid);
  const t0 = performance.now();
  execFileSync('rsync', ['-a', '-e', sshd.rshell, src, `${sshd.user}@127.0.0.1:${out}/`]);
  const sec = (performance.now() - t0) / 1000;
  const cpuSec = childCpuOf('self') + childCpuOf(sshd.pid) - cpu0;
  if (fs.readdirSync(path.join(out, 'corpus')).length !== hashes.size) throw new Error('rsync did not copy every file');
  fs.rmSync(out, { recursive: true, force: true });
  return { sec, cpuSec };
}

const pids = () => ({ gateway: gw.child.pid!, source: fileServices.get('sz-a100')!.pid!, receiver: fileServices.get('gz-ascend')!.pid! });

// The transport floor: the same files streamed by one plain HTTP PUT each into a bare node:http server that
// writes them to the target center's disk (no staging, no hashes, no resume).
const put = await startJsonProcess<{ port: number }>(process.execPath, [path.join(here, 'support/put-server.mjs')], { PUT_DIR: path.join(dstHome, 'plain-http') });
const drop = await startJsonProcess<{ port: number }>(process.execPath, [path.join(here, 'support/put-server.mjs')], {});
async function plainHttp(port = put.info.port): Promise<number> {
  const t0 = performance.now();
  for (const name of hashes.keys()) {
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'PUT', path: `/${name}`, agent: false }, (res) => {
        res.resume();
        res.once('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT ${res.statusCode}`))));
      });
      req.once('error', reject);
      fs.createReadStream(path.join(src, name), { highWaterMark: MB }).pipe(req);
    });
  }
  const sec = (performance.now() - t0) / 1000;
  fs.rmSync(path.join(dstHome, 'plain-http'), { recursive: true, force: true });
  fs.mkdirSync(path.join(dstHome, 'plain-http'));
  return sec;
}

async function timedSync(): Promise<{ sec: number; job: SyncJob; ok: boolean; cpuSec: Record<string, number> }> {
  const cpu0 = Object.fromEntries(Object.entries(pids()).map(([k, pid]) => [k, cpuOf(pid)]));
  const t0 = performance.now();
  let job = await api<SyncJob>('POST', `${SYNC_BASE}/syncs`, { sourceCenterId: 'sz-a100', sourcePath: '/corpus', targetCenterId: 'gz-ascend', targetDir: '/' });
  while (job.state === 'QUEUED' || job.state === 'RUNNING') {
    await new Promise((r) => setTimeout(r, 20));
    job = await api<SyncJob>('GET', `${SYNC_BASE}/syncs/${job.id}`);
  }
  const sec = (performance.now() - t0) / 1000;
  const cpuSec = Object.fromEntries(Object.entries(pids()).map(([k, pid]) => [k, Number((cpuOf(pid) - cpu0[k]).toFixed(2))]));
  const out = path.join(dstHome, 'corpus');
  const ok = job.state === 'SUCCEEDED' && [...hashes].every(([name, sha]) => sha256File(path.join(out, name)) === sha);
  fs.rmSync(out, { recursive: true, force: true });
  return { sec, job, ok, cpuSec };
}

// One untimed pass of each side first (JIT, first connections, first writes into the centers' folders).
plainCopy();
hashOnly();
rsyncCopy();
await plainHttp();
await plainHttp(drop.info.port);
await new Promise((r) => setTimeout(r, 100));
await timedSync();

type Round = {
  plainHttpSec: number;
  syncSec: number;
  /** plain HTTP ÷ sync (goal ≥ 0.9). */
  ratioToHttp: number;
  rsyncSec: number;
  /** rsync ÷ sync: how many times faster the sync is (goal ≥ 2). */
  fasterThanRsync: number;
  socketSec: number;
  hashSec: number;
  plainCopySec: number;
  sha256Match: boolean;
  cpuSec: Record<string, number>;
};
const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) {
  let plainCopySec = 0;
  let hashSec = 0;
  let socketSec = 0;
  let plainHttpSec = 0;
  let rsync = { sec: 0, cpuSec: 0 };
  let s: Awaited<ReturnType<typeof timedSync>> | null = null;
  // The order rotates every round.
  const sides = [
    async () => void (plainCopySec = plainCopy()),
    async () => void (hashSec = hashOnly()),
    async () => void (socketSec = await plainHttp(drop.info.port)),
    async () => void (plainHttpSec = await plainHttp()),
    async () => void (s = await timedSync()),
    async () => void (rsync = rsyncCopy()),
  ];
  for (let k = 0; k < sides.length; k++) {
    prepareRun(dataDir, SIZE_MB);
    // prepareRun and rsync block this event loop for seconds: let it see the gateway's closes of idle
    // keep-alive sockets first, or fetch reuses one of them ("other side closed").
    await new Promise((r) => setTimeout(r, 100));
    await sides[(i + k) % sides.length]();
  }
  const r = s as unknown as Awaited<ReturnType<typeof timedSync>>;
  const round: Round = {
    plainHttpSec: Number(plainHttpSec.toFixed(2)),
    syncSec: Number(r.sec.toFixed(2)),
    ratioToHttp: Number((plainHttpSec / r.sec).toFixed(3)),
    rsyncSec: Number(rsync.sec.toFixed(2)),
    fasterThanRsync: Number((rsync.sec / r.sec).toFixed(2)),
    socketSec: Number(socketSec.toFixed(2)),
    hashSec: Number(hashSec.toFixed(2)),
    plainCopySec: Number(plainCopySec.toFixed(2)),
    sha256Match: r.ok,
    cpuSec: { ...r.cpuSec, rsyncAndSsh: Number(rsync.cpuSec.toFixed(2)) },
  };
  rounds.push(round);
  log(`round ${i + 1}/${ROUNDS}: sync ${round.syncSec} s, plain HTTP ${round.plainHttpSec} s (÷sync ${round.ratioToHttp}), rsync -a over ssh ${round.rsyncSec} s (sync ${round.fasterThanRsync}× faster), socket only ${round.socketSec} s, one SHA-256 pass ${round.hashSec} s, cp -r ${round.plainCopySec} s; ${r.job.state}, sha256 ${r.ok ? 'matches' : 'MISMATCH'}, CPU-s ${JSON.stringify(round.cpuSec)}; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}
const medianOf = (pick: (r: Round) => number) => [...rounds].map(pick).sort((a, b) => a - b)[Math.floor(rounds.length / 2)];

for (const child of fileServices.values()) await stop(child);
await stop(put.child);
await stop(drop.child);
await stop(gw.child);
sshd.stop();
fs.rmSync(dataDir, { recursive: true, force: true });

const result = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  loadAverage: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  sizeMiB: SIZE_MB,
  files: FILES,
  method: `${ROUNDS} rounds in rotating order (each run after sync + page-cache warm-up): a sync job between two file-service processes (gateway API to SUCCEEDED), plain HTTP PUTs of the files between two processes, rsync -a -e ssh between the two storage roots through an sshd on loopback, the same PUTs read and dropped by another process (socket only), one SHA-256 pass over the files in one process, and cp -r on the same disk; medians of each figure and of each ratio`,
  syncSec: medianOf((r) => r.syncSec),
  plainHttpSec: medianOf((r) => r.plainHttpSec),
  ratioToPlainHttp: medianOf((r) => r.ratioToHttp),
  rsyncSec: medianOf((r) => r.rsyncSec),
  fasterThanRsync: medianOf((r) => r.fasterThanRsync),
  socketSec: medianOf((r) => r.socketSec),
  hashSec: medianOf((r) => r.hashSec),
  plainCopySec: medianOf((r) => r.plainCopySec),
  syncMiBps: Math.round(SIZE_MB / medianOf((r) => r.syncSec)),
  rounds,
  sha256Match: rounds.every((r) => r.sha256Match),
  goals: { ratioToPlainHttp: 0.9, fasterThanRsync: 2 },
};
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results/sync.json'), JSON.stringify(result, null, 2));
console.log(JSON.stringify(result, null, 2));
if (!result.sha256Match) process.exit(1);
