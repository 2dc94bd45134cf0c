#!/usr/bin/env node
// `npm test`: every tier, in order — unit, api (SQLite + PostgreSQL) and integration, then the console
// build and the e2e tier in real Chromium. The services each tier needs are checked first: a missing one
// fails the run with the reason (under CI=true and locally alike), it never silently skips a tier.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const tiers = process.argv.slice(2);
const want = (t) => tiers.length === 0 || tiers.includes(t);

function reachable(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

const problems = [];
if (want('api') && !(await reachable(5432))) problems.push('PostgreSQL is not reachable at 127.0.0.1:5432 (api tier runs on both engines)');
if (want('api') && !(await reachable(6379))) problems.push('Redis is not reachable at 127.0.0.1:6379 (cross-process live updates test)');
if (want('e2e') && !fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell')) problems.push('Chromium is missing: run scripts/provision.sh');
// e2e/deploy.e2e.ts and the fault test (apps/server/src/deployment-fault.slurm.int.test.ts, integration tier)
// bring the deployment of docs/operations/deploy.md up behind a real nginx.
if ((want('api') || want('e2e')) && spawnSync('sh', ['-c', 'command -v nginx'], { stdio: 'ignore' }).status !== 0) problems.push('nginx is missing: run scripts/provision.sh');
try {
  if (want('api')) execFileSync('openssl', ['version'], { stdio: 'ignore' });
} catch {
  problems.push('openssl is missing: run scripts/provision.sh');
}
// Private dataset/model folders get POSIX ACLs (docs/adr/0013-private-data-on-disk.md); the tests read them back.
if ((want('api') || want('e2e')) && ['setfacl', 'getfacl'].some((b) => spawnSync('sh', ['-c', `command -v ${b}`], { stdio: 'ignore' }).status !== 0)) {
  problems.push('setfacl/getfacl are missing (Debian package acl): run scripts/provision.sh');
}
// The web shell's SSH transport (api tier) and its e2e journey log in to a real sshd on loopback, as do the
// Slurm clusters' login nodes (scripts/slurm/sshd.sh).
if ((want('api') || want('e2e')) && !fs.existsSync(process.env.SSHD_PATH || '/usr/sbin/sshd')) {
  problems.push('OpenSSH server is missing (/usr/sbin/sshd): run scripts/provision.sh');
}
if (want('api') || want('e2e')) {
  // The Slurm part of the integration tier starts two real clusters (scripts/slurm/up.sh); the e2e journey of
  // a develop task on Slurm (e2e/develop-slurm.e2e.ts) starts one.
  const slurmBins = ['munged', 'slurmctld', 'slurmd', 'slurmdbd', 'slurmrestd', 'sacctmgr', 'mysql'];
  const missing = slurmBins.filter((b) => spawnSync('sh', ['-c', `command -v ${b}`], { stdio: 'ignore' }).status !== 0);
  if (missing.length) problems.push(`Slurm is not installed (${missing.join(', ')} missing): run scripts/provision.sh`);
  if (!(await reachable(3306))) problems.push('MariaDB is not reachable at 127.0.0.1:3306 (slurmdbd of the Slurm integration tier)');
  if (process.getuid?.() !== 0) problems.push('the Slurm tests (integration tier, develop-slurm e2e) must run as root (slurmd, useradd for the cluster accounts)');
}
if (problems.length) {
  for (const p of problems) console.error(`✗ ${p}`);
  process.exit(1);
}

/**
 * Work started beside the tiers (the Slurm tier, the build): stopped when the run fails before waiting on it, or
 * is interrupted. Each runs in a process group of its own and the whole group gets the SIGINT: signalling only the
 * direct child (npx, GNU time) left the vitest under it running.
 */
const besides = new Set();
process.on('exit', () => {
  for (const child of besides) {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {
      // already gone
    }
  }
});
// Ctrl-C reaches this process's group only: exit through the handler above so the besides' groups stop too.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/**
 * The command under GNU time when it is there (scripts/provision.sh installs it): the tier's wall and CPU seconds
 * (user + sys of it and every child it waited for — vitest's workers, the Chromium its globalSetup launched; not
 * the Slurm daemons or the databases) land in test-results/<name>.cpu for scripts/test-times.mjs (issue 26: the
 * run is CPU-bound, so CPU seconds are what a cut must lower).
 */
function timed(name, cmd, args) {
  if (!fs.existsSync('/usr/bin/time')) return [cmd, args];
  fs.mkdirSync('test-results', { recursive: true });
  return ['/usr/bin/time', ['-o', `test-results/${name}.cpu`, '-f', '%e %U %S', cmd, ...args]];
}

/**
 * Runs a tier in the foreground (its output to this terminal); `name` names its test-results/<name>.cpu. Not
 * spawnSync: work beside it (the e2e tier waiting for the build) must go on while it runs.
 */
async function run(label, cmd, args, name) {
  console.log(`\n━━ ${label} ━━ ${cmd} ${args.join(' ')}`);
  const child = spawn(...timed(name, cmd, args), { stdio: 'inherit' });
  const status = await new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  if (status !== 0) {
    console.error(`✗ ${label} failed`);
    process.exit(status);
  }
}

/** Runs a command beside the next steps, its output to test-results/<name>.log; resolves with its exit code. */
function beside(cmd, args, name) {
  fs.mkdirSync('test-results', { recursive: true });
  const log = fs.openSync(`test-results/${name}.log`, 'w');
  const child = spawn(...timed(name, cmd, args), { stdio: ['ignore', log, log], detached: true });
  besides.add(child);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      besides.delete(child);
      resolve(code ?? 1);
    }),
  );
}

// Every run also leaves per-file durations in test-results/ (issue 26: where the suite's time goes);
// `node scripts/test-times.mjs` summarises them.
const timings = (name) => ['--reporter=default', '--reporter=json', `--outputFile.json=test-results/${name}.json`];

// The Slurm files mostly wait on jobs: they run in a second vitest process beside the others, three at a time, each
// worker on a pair of clusters of its own (apps/server/test/slurm-harness.ts; output in test-results/slurm.log,
// printed when it ends); Linux users are created under one lock by both (apps/server/test/posix-users.ts,
// scripts/slurm/users.sh). TEST_SLURM_BESIDE=0 runs them after the others in one process (issue 26).
const slurmBeside = process.env.TEST_SLURM_BESIDE !== '0' && want('api');
let slurmDone = null;
if (slurmBeside) {
  console.log('\n━━ Slurm integration tier, beside the others ━━ output: test-results/slurm.log');
  slurmDone = beside('npx', ['vitest', 'run', '--project', 'server-slurm', ...timings('slurm')], 'slurm');
}

// The console and user guide build (for the e2e tier) runs beside the tests before it: they spend most of
// their time waiting, the build is ~1 min of CPU. Output in test-results/build.log, printed when it ends.
let buildDone = null;
if (want('e2e') && tiers.length !== 1) {
  console.log('\n━━ console + user guide build, beside the others ━━ output: test-results/build.log');
  buildDone = beside('npm', ['run', 'build'], 'build');
}

// The unit tier (the console's happy-dom files are most of its CPU, and their 30 s tests are the suite's most
// sensitive to load) runs first; then the api tier, which mostly waits (sockets, child processes, databases,
// timers: CI30 ran its 93 files, 744 s of file time, at ~2.5 at a time), with the e2e tier beside it.
const unitProjects = want('unit') ? ['contracts', 'server-unit', 'console', 'bench'] : [];
const apiProjects = want('api') ? ['server-api', ...(slurmBeside ? [] : ['server-slurm'])] : [];
const vitestArgs = (projects, name) => ['vitest', 'run', ...projects.flatMap((p) => ['--project', p]), ...timings(name)];

async function buildTier() {
  if (!buildDone) return run('console + user guide build', 'npm', ['run', 'build'], 'build');
  const code = await buildDone;
  console.log(`\n━━ console + user guide build ━━\n${fs.readFileSync('test-results/build.log', 'utf8')}`);
  if (code !== 0) {
    console.error('✗ console + user guide build failed');
    process.exit(code);
  }
}
const e2eArgs = ['vitest', 'run', '--project', 'e2e', ...timings('e2e')];

if (unitProjects.length) await run('unit', 'npx', vitestArgs(unitProjects, 'unit'), 'unit');

// The e2e tier starts once the unit tier and the build are done, beside the api tier (output in
// test-results/e2e.log, printed when it ends): the run is CPU-bound, and the api tier leaves about half of two
// cores idle (issue 26). Not beside the unit tier: in CI27 (session 20) that load pushed the console's antd form
// tests past their 30 s. TEST_E2E_BESIDE=0 runs it after the api tier instead.
const e2eBeside = want('e2e') && apiProjects.length > 0 && process.env.TEST_E2E_BESIDE !== '0';
let e2eDone = null;
if (e2eBeside) {
  console.log('\n━━ e2e (Chromium), beside the api tier ━━ output: test-results/e2e.log');
  e2eDone = buildTier().then(() => beside('npx', e2eArgs, 'e2e'));
}

if (apiProjects.length) await run('api + integration', 'npx', vitestArgs(apiProjects, 'api'), 'api');

async function slurmTier() {
  if (!slurmDone) return;
  const code = await slurmDone;
  console.log(`\n━━ Slurm integration tier ━━\n${fs.readFileSync('test-results/slurm.log', 'utf8')}`);
  if (code !== 0) {
    console.error('✗ Slurm integration tier failed');
    process.exit(code);
  }
}
// The e2e tier does not wait for the Slurm files (mostly waiting on jobs) to end: it starts as soon as the unit
// tier and the build are done, and the Slurm tier's output is printed when the e2e tier is over. develop-slurm.e2e
// starts a cluster of its own on accounts (sla0001…) no harness of the Slurm tier uses (sla1_…, slb1_…).
if (!want('e2e')) await slurmTier();
if (e2eDone) {
  const code = await e2eDone;
  console.log(`\n━━ e2e (Chromium) ━━\n${fs.readFileSync('test-results/e2e.log', 'utf8')}`);
  if (code !== 0) {
    console.error('✗ e2e (Chromium) failed');
    process.exit(code);
  }
  await slurmTier();
} else if (want('e2e')) {
  await buildTier();
  await run('e2e (Chromium)', 'npx', e2eArgs, 'e2e');
  await slurmTier();
}
console.log('\n✓ all requested tiers passed');
