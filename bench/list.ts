// bench/list: the message list (`POST /message/query`, pageNum/pageSize + total) and the unread count with
// 100k messages of the benchmark user among 200k rows — budget p99 ≤ 50 ms for list endpoints at 100k rows.
// Each query's answer is first checked against the page the seed implies (support/list-seed.ts), then:
// - p50/p99 at a fixed moderate rate (default 200 req/s for 5 s), requests sent evenly spaced and timed
//   from when each was due. autocannon cannot do this: its `overallRate` lets every connection fire its
//   whole per-second quota back to back at the top of each second, so its latencies measure the burst
//   queue, not the rate.
// - peak req/s with autocannon (closed loop, 10 connections, 3 s), as headroom over that rate.
// Run: npm run list -w bench                  embedded default (SQLite)
//      npm run list -w bench -- --pg          PostgreSQL: a throwaway database on BENCH_DATABASE_URL's
//                                             server (default postgres://postgres@127.0.0.1:5432/postgres)
//      npm run list -w bench -- --both        both engines, one after the other
// Setting BENCH_DATABASE_URL alone selects PostgreSQL too. Writes bench/results/list.json.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { MESSAGE_BASE, type Message, type MessageType } from '@suanli/contracts';
import { createPgDatabase } from '../apps/server/test/harness';
import { benchMessage, LIST_SEED } from './support/list-seed';
import { startJsonProcess, stop } from './support/proc';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const PEAK_SEC = 3;
const PEAK_CONNECTIONS = 10;
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BUDGET_P99_MS = 50;

const flags = new Set(process.argv.slice(2));
const engines = flags.has('--both')
  ? (['sqlite', 'postgres'] as const)
  : flags.has('--pg') || process.env.BENCH_DATABASE_URL
    ? (['postgres'] as const)
    : (['sqlite'] as const);

interface ListQuery {
  pageNum: number;
  pageSize: number;
  viewed?: boolean;
  type?: MessageType;
}
const PAGE_SIZE = 20;
const TYPE: MessageType = 'task';
const queries: [name: string, body: ListQuery][] = [
  ['page 1', { pageNum: 1, pageSize: PAGE_SIZE }],
  ['middle page (2500 of 5000)', { pageNum: 2500, pageSize: PAGE_SIZE }],
  ['last page (5000)', { pageNum: 5000, pageSize: PAGE_SIZE }],
  ['unread, page 1', { pageNum: 1, pageSize: PAGE_SIZE, viewed: false }],
  ['unread, middle page (625 of 1250)', { pageNum: 625, pageSize: PAGE_SIZE, viewed: false }],
  [`type ${TYPE}, page 1`, { pageNum: 1, pageSize: PAGE_SIZE, type: TYPE }],
  [`type ${TYPE}, last page (1000)`, { pageNum: 1000, pageSize: PAGE_SIZE, type: TYPE }],
  [`unread + type ${TYPE}, page 1`, { pageNum: 1, pageSize: PAGE_SIZE, viewed: false, type: TYPE }],
];

/** The benchmark user's messages newest first, as the seed wrote them. */
const seeded = Array.from({ length: LIST_SEED.userMessages }, (_, i) => benchMessage(LIST_SEED.userMessages - 1 - i));
const expectedUnread = seeded.filter((m) => !m.viewed).length;

function expectedPage(q: ListQuery) {
  const all = seeded.filter((m) => (q.viewed === undefined || m.viewed === q.viewed) && (q.type === undefined || m.type === q.type));
  return { total: all.length, list: all.slice((q.pageNum - 1) * q.pageSize, q.pageNum * q.pageSize) };
}

function peak(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ duration: PEAK_SEC, connections: PEAK_CONNECTIONS, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];

/**
 * RATE requests a second for DURATION seconds, each sent when it is due whatever the others are doing
 * (open loop), its latency counted from that due time — a slow answer cannot hide the ones queued behind it.
 */
async function paced(target: { port: number; path: string; headers: Record<string, string>; body: string }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  let errors = 0;
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: target.port, path: target.path, method: 'POST', headers: target.headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          latencies.push(performance.now() - due);
          const ok = res.statusCode === 200 && JSON.parse(Buffer.concat(chunks).toString()).message.code === 0;
          if (!ok) errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(target.body);
    });
  const sent: Promise<void>[] = [];
  const start = performance.now() + 20;
  for (let i = 0; i < RATE * DURATION; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(send(due));
  }
  await Promise.all(sent);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Number(v.toFixed(1));
  return { p50Ms: ms(percentile(latencies, 0.5)), p99Ms: ms(percentile(latencies, 0.99)), maxMs: ms(latencies[latencies.length - 1]), errors };
}

async function measureEngine(engine: 'sqlite' | 'postgres') {
  const pgDb = engine === 'postgres' ? await createPgDatabase(PG_SERVER) : null;
  // An empty DATABASE_URL keeps a DATABASE_URL of the caller's shell from turning the SQLite run into PostgreSQL.
  const gw = await startJsonProcess<{ port: number; token: string; seedMs: number }>(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'support/gateway.ts')],
    { BENCH_LIST_SEED: '1', DATABASE_URL: pgDb?.url ?? '' },
  );
  try {
    const headers = { token: gw.info.token, 'content-type': 'application/json' };
    const call = async (route: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${gw.info.port}${MESSAGE_BASE}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
      return (await res.json()) as { message: { code: number }; data: any };
    };
    const checks: [name: string, route: string, body: unknown, check: (data: any) => string | null][] = queries.map(([name, q]) => [
      name,
      '/query',
      q,
      (data: { list: Message[]; total: number; pageNum: number; pageSize: number }) => {
        const want = expectedPage(q);
        const got = data.list.map((m) => ({ type: m.type, viewed: m.viewed, createTime: m.createTime }));
        if (data.total !== want.total) return `total ${data.total}, expected ${want.total}`;
        if (data.pageNum !== q.pageNum || data.pageSize !== q.pageSize) return `echoed ${data.pageNum}/${data.pageSize}`;
        if (JSON.stringify(got) !== JSON.stringify(want.list)) return `page differs from the seed (first ${JSON.stringify(got[0])}, expected ${JSON.stringify(want.list[0])})`;
        return null;
      },
    ]);
    checks.push(['unread count', '/unview/count', { startTime: 0 }, (n: number) => (n === expectedUnread ? null : `count ${n}, expected ${expectedUnread}`)]);

    const results = [];
    for (const [name, route, body, check] of checks) {
      // Prove the route answers what we think before timing it.
      const probe = await call(route, body);
      const wrong = probe.message.code !== 0 ? `code ${probe.message.code}` : check(probe.data);
      if (wrong) throw new Error(`${engine} ${name}: ${wrong}`);
      // One request at a time: what a single call costs without queueing behind others.
      const serial: number[] = [];
      for (let i = 0; i < 30; i++) {
        const t0 = performance.now();
        await call(route, body);
        serial.push(performance.now() - t0);
      }
      serial.sort((a, b) => a - b);
      const url = `${MESSAGE_BASE}${route}`;
      const p = await peak({ url: `http://127.0.0.1:${gw.info.port}${url}`, method: 'POST', headers, body: JSON.stringify(body) });
      await sleep(500); // let the peak's backlog (GC, PostgreSQL's background work) settle
      const r = await paced({ port: gw.info.port, path: url, headers, body: JSON.stringify(body) });
      results.push({
        name,
        body,
        serialMedianMs: Number(serial[15].toFixed(2)),
        peakReqPerSec: Math.round(p.requests.average),
        ...r,
        errors: r.errors + p.errors + p.non2xx + p.timeouts,
      });
      console.error(
        `${engine.padEnd(8)} ${name.padEnd(36)} serial ${serial[15].toFixed(2)} ms · peak ${Math.round(p.requests.average)}/s · at ${RATE}/s p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`,
      );
    }
    return { seedSec: Number((gw.info.seedMs / 1000).toFixed(1)), queries: results };
  } finally {
    await stop(gw.child);
    await pgDb?.drop();
  }
}

const measured: Record<string, Awaited<ReturnType<typeof measureEngine>>> = {};
for (const engine of engines) measured[engine] = await measureEngine(engine);

const all = Object.values(measured).flatMap((e) => e.queries);
const result = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  seed: {
    benchUserMessages: LIST_SEED.userMessages,
    otherUsersMessages: LIST_SEED.otherMessages,
    otherUsers: LIST_SEED.otherUsers,
    benchUserUnread: expectedUnread,
    benchUserPerType: expectedPage({ pageNum: 1, pageSize: 1, type: TYPE }).total,
  },
  load: { ratePerSec: RATE, durationSec: DURATION, peak: { connections: PEAK_CONNECTIONS, durationSec: PEAK_SEC }, pageSize: PAGE_SIZE },
  engines: measured,
  budget: { p99Ms: BUDGET_P99_MS },
  pass: all.every((q) => q.p99Ms <= BUDGET_P99_MS && q.errors === 0),
};
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, 'results/list.json'), JSON.stringify(result, null, 2));
console.log(JSON.stringify(result, null, 2));
