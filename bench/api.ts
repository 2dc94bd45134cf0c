// bench/api: authenticated `POST /message/unview/count` peak req/s ÷ a bare node:http hello on the same
// machine (budget ≥ 0.15; the median of alternating rounds), and p99 latency at 30% of the gateway's peak
// (budget ≤ 50 ms).
// Run: npm run api -w bench   (writes bench/results/api.json)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startJsonProcess, stop } from './support/proc';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
/** Baseline and gateway are measured alternately, ROUNDS times each: this VM's speed drifts by ±20 % over
 * a minute, so one back-to-back pair can land on different sides of a drift. The median ratio is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

const hello = await startJsonProcess<{ port: number }>(process.execPath, [path.join(import.meta.dirname, 'support/hello.mjs')]);
const gw = await startJsonProcess<{ port: number; token: string }>(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'support/gateway.ts')]);
const route = {
  url: `http://127.0.0.1:${gw.info.port}/gateway/foundation/api/v1/message/unview/count`,
  method: 'POST' as const,
  headers: { token: gw.info.token, 'content-type': 'application/json' },
  body: JSON.stringify({ startTime: 0 }),
};
// Prove the route answers what we think before timing it.
const probe = await fetch(route.url, { method: 'POST', headers: route.headers, body: route.body }).then((r) => r.json());
if (probe?.message?.code !== 0 || probe.data !== 200) throw new Error(`unexpected answer: ${JSON.stringify(probe)}`);

await load({ url: `http://127.0.0.1:${hello.info.port}/`, duration: 2 }); // warm-up both (JIT, SQLite page cache)
await load({ ...route, duration: 3 });
const rounds: { baseline: number; gateway: number; ratio: number }[] = [];
let errors = 0;
for (let i = 0; i < ROUNDS; i++) {
  const b = await load({ url: `http://127.0.0.1:${hello.info.port}/` });
  const g = await load(route);
  errors += g.errors + g.non2xx;
  rounds.push({ baseline: Math.round(b.requests.average), gateway: Math.round(g.requests.average), ratio: Number((g.requests.average / b.requests.average).toFixed(3)) });
}
await stop(hello.child);
const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
const rate = Math.max(1, Math.floor(median.gateway * 0.3));
const at30 = await load({ ...route, overallRate: rate });
await stop(gw.child);
errors += at30.errors + at30.non2xx;
const baseline = { requests: { average: median.baseline } };
const peak = { requests: { average: median.gateway } };
const result = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  durationSec: DURATION,
  connections: CONNECTIONS,
  rounds,
  baselineReqPerSec: Math.round(baseline.requests.average),
  gatewayPeakReqPerSec: Math.round(peak.requests.average),
  ratio: Number((peak.requests.average / baseline.requests.average).toFixed(3)),
  at30PercentRate: rate,
  at30PercentP99Ms: at30.latency.p99,
  at30PercentP50Ms: at30.latency.p50,
  errors,
  budget: { ratio: 0.15, p99Ms: 50 },
};
result['pass' as never] = (result.ratio >= 0.15 && result.at30PercentP99Ms <= 50 && errors === 0) as never;
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, 'results/api.json'), JSON.stringify(result, null, 2));
console.log(JSON.stringify(result, null, 2));
