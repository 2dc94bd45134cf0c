#!/usr/bin/env node
// CPU seconds of a command's whole process tree, Chromium's renderers included (issue 26).
//
//   node scripts/tree-cpu.mjs [--json FILE] -- npx vitest run --project e2e e2e/storage.e2e.ts
//
// GNU time and `wait4` count only the children a process waited for: Chromium's zygote forks the renderers
// and nobody waits for them, and Playwright starts Chromium in a session of its own, so neither /usr/bin/time
// nor the process group sees them (session 18: time said 262 CPU-s where the tree used 617). This samples
// /proc every 250 ms and keeps each process's last utime+stime; a process is in the tree when it descends
// from the command or was already seen (an orphan re-parented to init stays counted). What a process uses
// after its last sample (< 250 ms) is lost, so the figures are a slight undercount, the same on both sides
// of a comparison. Prints the total, by kind (vitest main/worker, Chromium browser/renderer/GPU/utility/
// zygote, other), the number of renderer processes started (≈ the pages a browser context opened first) and
// the load average before and after.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
if (sep < 0 || sep === argv.length - 1) {
  console.error('usage: node scripts/tree-cpu.mjs [--json FILE] -- <command> [args…]');
  process.exit(2);
}
const opts = argv.slice(0, sep);
const jsonOut = opts.includes('--json') ? opts[opts.indexOf('--json') + 1] : undefined;
const [cmd, ...args] = argv.slice(sep + 1);
const TICK = 100; // getconf CLK_TCK on Linux

/** pid → { start, cpu (ticks), kind } of every process of the tree seen so far (pid + start time: no reuse). */
const seen = new Map();

function stat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // After the comm: state(0) ppid(1) … utime(11) stime(12) … starttime(19)
    return { ppid: Number(rest[1]), cpu: Number(rest[11]) + Number(rest[12]), start: rest[19] };
  } catch {
    return undefined;
  }
}

function kindOf(pid) {
  let line = '';
  try {
    line = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return 'other';
  }
  if (/chrom/i.test(line.split(' ')[0])) {
    const type = /--type=([\w-]+)/.exec(line)?.[1];
    if (!type) return 'chromium:browser';
    if (type === 'renderer') return 'chromium:renderer';
    if (type === 'gpu-process') return 'chromium:gpu';
    if (type === 'zygote') return 'chromium:zygote';
    return `chromium:${type}`;
  }
  if (/chrome_crashpad/.test(line)) return 'chromium:crashpad';
  if (/\bnode\b/.test(line.split(' ')[0])) {
    if (/vitest\/dist\/workers|forks\.js|vitest.*worker/.test(line)) return 'node:vitest-worker';
    if (/vitest/.test(line)) return 'node:vitest-main';
    return 'node:other';
  }
  return `other:${line.split(' ')[0].split('/').pop() || '?'}`;
}

function sample(root) {
  const procs = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const s = stat(pid);
    if (s) procs.push({ pid, ...s });
  }
  const inTree = new Set([root]);
  // Descendants of the root (repeat: /proc order need not be parent-first).
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (inTree.has(p.pid) || !inTree.has(p.ppid)) continue;
      inTree.add(p.pid);
      grew = true;
    }
  }
  for (const p of procs) {
    const key = `${p.pid}@${p.start}`;
    const known = seen.get(key);
    if (known) {
      known.cpu = Math.max(known.cpu, p.cpu);
      // A process is first seen as what it was forked or started from (Chromium's shell wrapper before its exec,
      // a zygote fork before it is titled a renderer): name it again until it says what it is.
      if (/^other:(sh|\?)$|^chromium:zygote$/.test(known.kind)) known.kind = kindOf(p.pid);
    }
    else if (inTree.has(p.pid)) seen.set(key, { cpu: p.cpu, kind: kindOf(p.pid) });
  }
}

const load0 = os.loadavg();
const t0 = Date.now();
const child = spawn(cmd, args, { stdio: 'inherit' });
const timer = setInterval(() => sample(child.pid), 250);
sample(child.pid);
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 128 : 1))));
clearInterval(timer);
const wall = (Date.now() - t0) / 1000;
const load1 = os.loadavg();

const byKind = {};
let renderers = 0;
/** Renderer-kind processes (a zygote fork is titled a renderer once it starts one) by their CPU-s, for spares. */
const rendererCpu = [];
for (const { cpu, kind } of seen.values()) {
  byKind[kind] = (byKind[kind] ?? 0) + cpu / TICK;
  if (kind === 'chromium:renderer') renderers++;
  if (kind === 'chromium:renderer' || kind === 'chromium:zygote') rendererCpu.push(cpu / TICK);
}
const histogram = { '<0.1': 0, '0.1-0.3': 0, '0.3-1': 0, '1-3': 0, '>3': 0 };
for (const c of rendererCpu) histogram[c < 0.1 ? '<0.1' : c < 0.3 ? '0.1-0.3' : c < 1 ? '0.3-1' : c < 3 ? '1-3' : '>3']++;
const total = Object.values(byKind).reduce((a, b) => a + b, 0);
const chromium = Object.entries(byKind).filter(([k]) => k.startsWith('chromium')).reduce((a, [, v]) => a + v, 0);
const result = {
  command: [cmd, ...args].join(' '),
  exit: code,
  wall: Number(wall.toFixed(1)),
  cpu: Number(total.toFixed(1)),
  chromium: Number(chromium.toFixed(1)),
  renderers,
  rendererCpuHistogram: histogram,
  byKind: Object.fromEntries(Object.entries(byKind).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number(v.toFixed(1))])),
  load: { before: load0.map((l) => Number(l.toFixed(1))), after: load1.map((l) => Number(l.toFixed(1))) },
  at: new Date(t0).toISOString(),
};
console.error(
  `tree-cpu: ${result.cpu} CPU-s (Chromium ${result.chromium}, ${renderers} renderers) in ${result.wall} s wall, exit ${code}, load ${result.load.before[0]} → ${result.load.after[0]}\n` +
    `  renderer/zygote processes by CPU-s: ${JSON.stringify(histogram)}\n` +
    Object.entries(result.byKind)
      .map(([k, v]) => `  ${k.padEnd(22)} ${v}`)
      .join('\n'),
);
if (jsonOut) fs.appendFileSync(jsonOut, JSON.stringify(result) + '\n');
process.exit(code);
