// bench/api: authenticated `POST /message/unview/count` peak req/s ÷ a bare node:http hello on the same
// machine (budget ≥ 0.15), and p99 latency at 30% of the gateway's peak (budget ≤ 50 ms).
// Run: npm run api -w bench   (writes bench/results/api.json)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startJsonProcess, stop } from './support/proc';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

const hello = await startJsonProcess<{ port: number }>(process.execPath, [path.join(import.meta.dirname, 'support/hello.mjs')]);
const baseline = await load({ url: `http://127.0.0.1:${hello.info.port}/` });
await stop(hello.child);

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

await load({ ...route, duration: 3 }); // warm-up (JIT, SQLite page cache)
const peak = await load(route);
const rate = Math.max(1, Math.floor(peak.requests.average * 0.3));
const at30 = await load({ ...route, overallRate: rate });
await stop(gw.child);

const errors = peak.errors + peak.non2xx + at30.errors + at30.non2xx;
const result = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  durationSec: DURATION,
  connections: CONNECTIONS,
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
