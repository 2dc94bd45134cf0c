#!/usr/bin/env node
// Summarises where the test suite's time goes from the JSON reports `npm test` leaves in test-results/
// (issue 26): per tier the wall time of the run and the slowest files by their own duration, then the wall and
// CPU seconds of each tier's process tree (test-results/*.cpu, written through GNU time by scripts/test.mjs and
// .ci/run; the Slurm daemons and the databases are services, not counted).
import fs from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '../test-results');
const top = Number(process.argv[2] ?? 25);
for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : []) {
  const r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  const files = r.testResults.map((t) => ({
    file: path.relative(process.cwd(), t.name),
    seconds: (t.endTime - t.startTime) / 1000,
    tests: t.assertionResults.length,
  }));
  const wall = (Math.max(...r.testResults.map((t) => t.endTime)) - r.startTime) / 1000;
  const sum = files.reduce((s, x) => s + x.seconds, 0);
  console.log(`\n${f}: ${r.numTotalTests} tests in ${files.length} files, wall ${wall.toFixed(0)} s, sum of file durations ${sum.toFixed(0)} s`);
  for (const x of files.sort((a, b) => b.seconds - a.seconds).slice(0, top)) console.log(`${x.seconds.toFixed(1).padStart(8)} s  ${String(x.tests).padStart(4)}  ${x.file}`);
}

const cpu = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.cpu')) : [];
if (cpu.length) console.log('\nCPU seconds (user + sys) of each tier and the children it waited for:');
for (const f of cpu) {
  const [wall, user, sys] = fs.readFileSync(path.join(dir, f), 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
  // GNU time writes the file when the tier ends: empty while it runs (or if the run was cut off).
  if (![wall, user, sys].every(Number.isFinite)) {
    console.log(`${f.replace(/\.cpu$/, '').padEnd(10)} still running or cut off`);
    continue;
  }
  console.log(`${f.replace(/\.cpu$/, '').padEnd(10)} wall ${wall.toFixed(0).padStart(5)} s   CPU ${(user + sys).toFixed(0).padStart(5)} s (${user.toFixed(0)} user, ${sys.toFixed(0)} sys)`);
}
