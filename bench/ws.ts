// bench/ws: 10,000 idle authenticated live-updates sockets on one gateway — memory per socket, and a
// broadcast (one `notice.unread.increment` to every user) with budget p99 ≤ 250 ms.
// - The gateway (support/gateway.ts with BENCH_WS_USERS) creates one user + session per socket and exposes a
//   bench-only loopback control server (support/ws-control.ts); the broadcast runs inside the gateway, four
//   ways (BENCH_MODES): `everyone` — one event published to every socket (`EVERYONE`), the way the product
//   broadcasts (a center's status notice, the resource samples; the budget applies to this one), `bus` — the
//   same push addressed to each of the 10,000 users in turn, `notifyEach` — ctx.notifyEach, a stored message
//   per user in batches, then its push (used for work-order notices to the operators; reported against the
//   same 250 ms), `notify` — a loop of ctx.notify, one transaction per user.
// - This process opens the sockets in batches with an allowed Origin, and keeps each alive as the console
//   does (an empty text frame every 10 s); they are held past a sweep of the hub before anything is measured.
// - Memory: the gateway's VmRSS (/proc/<pid>/status) before the first socket and after the last, each after
//   a full GC, ÷ sockets. Broadcast latency: from the trigger's start in the gateway to each socket's receipt
//   here (same machine, same clock), every socket must get exactly one; ROUNDS rounds, median p99 reported.
// Run: npm run ws -w bench   (BENCH_SOCKETS, BENCH_BATCH, BENCH_ROUNDS, BENCH_HOLD_SEC, BENCH_MODES,
//      BENCH_CPU_PROF=<dir> for a CPU profile of the gateway; writes results/ws.json)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { SOCKET_KEEPALIVE_MS, WS_PATH, WS_RESOURCE_SAMPLED, WS_UNREAD_INCREMENT } from '@suanli/contracts';
import { nowMs } from './support/ws-control';
import { startJsonProcess, stop } from './support/proc';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Held open (idle but for keep-alives) this long before measuring: past the hub's 5 s sweep and a keep-alive. */
const HOLD_SEC = Number(process.env.BENCH_HOLD_SEC ?? 15);
const BUDGET_P99_MS = 250;
const ORIGIN = 'http://console.bench.local';
/** Broadcast paths, each timed ROUNDS times (see support/ws-control.ts); the budget applies to `everyone`. */
type Mode = 'everyone' | 'bus' | 'notifyEach' | 'notify';
const MODES = (process.env.BENCH_MODES?.split(',') ?? ['everyone', 'bus', 'notifyEach', 'notify']) as Mode[];
const EXPECTED = JSON.stringify({ businessType: WS_UNREAD_INCREMENT, data: { count: 1 } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const mib = (b: number) => Number((b / 2 ** 20).toFixed(1));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const round1 = (x: number) => Number(x.toFixed(1));

type GwInfo = { port: number; tokensFile: string; controlPort: number; seedMs: number };
const gw = await startJsonProcess<GwInfo>(
  process.execPath,
  ['--expose-gc', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), '--import', 'tsx', path.join(import.meta.dirname, 'support/gateway.ts')],
  { BENCH_WS_USERS: String(SOCKETS), ALLOWED_ORIGINS: ORIGIN },
);
const clients: WebSocket[] = [];
let keepAlive: NodeJS.Timeout | undefined;
const cleanup = async () => {
  clearInterval(keepAlive);
  for (const c of clients) c.terminate();
  await stop(gw.child);
};
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
process.once('SIGTERM', () => void cleanup().finally(() => process.exit(143)));

try {
  const pid = gw.child.pid!;
  const control = async <T>(route: string, method = 'GET') => {
    const res = await fetch(`http://127.0.0.1:${gw.info.controlPort}${route}`, { method });
    if (!res.ok) throw new Error(`${route}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  type Stats = { sockets: number; users: number; rss: number; heapUsed: number; external: number; arrayBuffers: number };
  const settledMemory = async () => {
    await control('/gc', 'POST');
    await sleep(500);
    await control('/gc', 'POST');
    return { rss: rssOf(pid), stats: await control<Stats>('/stats') };
  };
  const tokens = fs.readFileSync(gw.info.tokensFile, 'utf8').split('\n');
  if (tokens.length !== SOCKETS) throw new Error(`expected ${SOCKETS} tokens, got ${tokens.length}`);
  const url = (token: string) => `ws://127.0.0.1:${gw.info.port}${WS_PATH}?token=${encodeURIComponent(token)}`;

  // The allow-list is in force: a foreign Origin is refused at the upgrade.
  const foreign = await new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url(tokens[0]), { headers: { Origin: 'http://evil.example' } });
    ws.on('unexpected-response', (_req, res) => (resolve(res.statusCode ?? 0), ws.terminate()));
    ws.on('open', () => (ws.terminate(), reject(new Error('a foreign Origin was let in'))));
    ws.on('error', () => {});
  });
  if (foreign !== 403) throw new Error(`foreign Origin answered ${foreign}, expected 403`);

  const before = await settledMemory();

  // Receipt times per round, by socket index; NaN = not (yet) received.
  let current: Float64Array = new Float64Array(0);
  let received = 0;
  let unexpected = 0;
  /** The first few frames that were neither the bench's event (once a round) nor a known broadcast. */
  const unexpectedSample: string[] = [];
  /**
   * Broadcasts the gateway sends everyone by itself while the bench runs (the resource sampler's
   * `resource.sampled`, per center every sampling period): counted by type, not as unexpected — they are
   * part of what the 10,000 sockets cost, and a sampling that lands inside a round is in its latencies.
   */
  const ownBroadcasts: Record<string, number> = {};
  let closedEarly = 0;
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url(tokens[i]), { headers: { Origin: ORIGIN } });
      ws.on('message', (data) => {
        const t = nowMs();
        const text = String(data);
        if (text !== EXPECTED && text.startsWith(`{"businessType":"${WS_RESOURCE_SAMPLED}"`)) {
          ownBroadcasts[WS_RESOURCE_SAMPLED] = (ownBroadcasts[WS_RESOURCE_SAMPLED] ?? 0) + 1;
          return;
        }
        if (text !== EXPECTED || !Number.isNaN(current[i])) {
          unexpected++;
          if (unexpectedSample.length < 5) unexpectedSample.push(`${text === EXPECTED ? 'twice' : 'other'}: ${text.slice(0, 200)}`);
          return;
        }
        current[i] = t;
        received++;
      });
      ws.once('open', () => {
        clients[i] = ws;
        resolve();
      });
      ws.once('unexpected-response', (_req, res) => reject(new Error(`socket ${i} refused with HTTP ${res.statusCode}`)));
      ws.once('error', reject);
      ws.once('close', (code, reason) => {
        closedEarly++;
        reject(new Error(`socket ${i} closed ${code} ${String(reason)}`));
      });
    });
  // The console's keep-alive: an empty frame every 10 s per socket, here spread over ten 1 s ticks. It runs
  // from the first socket on, as the console's does from its socket's open: on a loaded machine opening all
  // 10,000 can outlast the hub's idle close, and the sockets opened first were then closed as idle.
  const slices = SOCKET_KEEPALIVE_MS / 1000;
  let tick = 0;
  let keepAlives = 0;
  keepAlive = setInterval(() => {
    const slice = tick++ % slices;
    for (let i = slice; i < clients.length; i += slices) {
      if (clients[i]?.readyState === WebSocket.OPEN) {
        clients[i].send('');
        keepAlives++;
      }
    }
  }, 1000);
  const openStart = performance.now();
  for (let i = 0; i < SOCKETS; i += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, SOCKETS - i) }, (_, k) => open(i + k)));
  }
  const openSec = (performance.now() - openStart) / 1000;
  await sleep(HOLD_SEC * 1000);
  const after = await settledMemory();
  if (after.stats.sockets !== SOCKETS || closedEarly) {
    throw new Error(`hub holds ${after.stats.sockets} sockets of ${SOCKETS} (${closedEarly} closed by the server)`);
  }

  const broadcastRound = async (mode: Mode) => {
    current = new Float64Array(SOCKETS).fill(NaN);
    received = 0;
    const { startedAt, notifyMs, userCpuMs, systemCpuMs } = await control<{ startedAt: number; notifyMs: number; userCpuMs: number; systemCpuMs: number }>(`/broadcast?mode=${mode}`, 'POST');
    const deadline = performance.now() + 30_000;
    while (received < SOCKETS && performance.now() < deadline) await sleep(20);
    const latencies = Array.from(current, (t) => t - startedAt)
      .filter((x) => !Number.isNaN(x))
      .sort((a, b) => a - b);
    await sleep(2_000);
    return {
      received: latencies.length,
      triggerMs: round1(notifyMs),
      /** The gateway's CPU while the trigger ran: user space (JS, SQLite) and kernel (socket writes, fsync). */
      userCpuMs: round1(userCpuMs),
      systemCpuMs: round1(systemCpuMs),
      p50Ms: round1(quantile(latencies, 0.5)),
      p95Ms: round1(quantile(latencies, 0.95)),
      p99Ms: round1(quantile(latencies, 0.99)),
      maxMs: round1(latencies[latencies.length - 1]),
    };
  };
  const broadcasts: Partial<Record<Mode, { rounds: Awaited<ReturnType<typeof broadcastRound>>[]; medianP99Ms: number }>> = {};
  for (const mode of MODES) {
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await broadcastRound(mode));
    const p99s = rounds.map((r) => r.p99Ms).sort((a, b) => a - b);
    broadcasts[mode] = { rounds, medianP99Ms: p99s[Math.floor(p99s.length / 2)] };
  }
  const final = await control<Stats>('/stats');
  const medianP99Ms = broadcasts.everyone?.medianP99Ms ?? NaN;
  const rssPerSocket = (after.rss - before.rss) / SOCKETS;
  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
    sockets: SOCKETS,
    batch: BATCH,
    openSec: round1(openSec),
    holdSec: HOLD_SEC,
    keepAlivesSent: keepAlives,
    hubAfterRounds: { sockets: final.sockets, users: final.users },
    memory: {
      rssBeforeMiB: mib(before.rss),
      rssAfterMiB: mib(after.rss),
      rssPerSocketKiB: round1(rssPerSocket / 1024),
      heapPerSocketKiB: round1((after.stats.heapUsed - before.stats.heapUsed) / SOCKETS / 1024),
      externalPerSocketKiB: round1((after.stats.external - before.stats.external) / SOCKETS / 1024),
      benchClientRssMiB: mib(process.memoryUsage().rss),
    },
    /** everyone: the product's broadcast (one event to every socket); bus: the same push to each user in turn;
     * notifyEach: a stored message per user in batches, then its push; notify: a loop of ctx.notify. */
    broadcasts,
    /** The broadcast's median p99 (`everyone`), which the budget applies to; notifyEach's beside it. */
    medianP99Ms,
    notifyEachMedianP99Ms: broadcasts.notifyEach?.medianP99Ms ?? null,
    unexpectedMessages: unexpected,
    unexpectedSample,
    ownBroadcasts,
    budget: { p99Ms: BUDGET_P99_MS },
    pass: medianP99Ms <= BUDGET_P99_MS && Object.values(broadcasts).every((b) => b.rounds.every((r) => r.received === SOCKETS)) && unexpected === 0 && final.sockets === SOCKETS,
  };
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(import.meta.dirname, 'results/ws.json'), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
} finally {
  await cleanup();
}
