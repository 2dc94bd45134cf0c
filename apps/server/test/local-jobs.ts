import fs from 'node:fs';
import path from 'node:path';

/**
 * No job of a local executor may outlive its test file: kill every job group an executor under `root` recorded
 * (`…/jobs/<id>/pid`: a local executor's state dir `root/state*`, or a gateway's data dir, whose executors keep
 * theirs in `executor/<center>/`) — a failed test, a queued job a closing executor had just started, a develop
 * task still running when its gateway closed (jobs outlive their gateway by design) — then remove the files. A
 * detached supervisor can still be writing its exit file for a moment after its group is killed (seen in CI as
 * ENOTEMPTY), so removal retries for up to 10 s.
 */
export async function removeAfterJobs(root: string) {
  for (const jobs of jobDirs(root, 3)) {
    for (const id of fs.readdirSync(jobs)) {
      try {
        process.kill(-Number(fs.readFileSync(path.join(jobs, id, 'pid'), 'utf8')), 'SIGKILL');
      } catch {
        /* never started, or already gone */
      }
    }
  }
  for (let i = 0; ; i++) {
    try {
      fs.rmSync(root, { recursive: true, force: true });
      return;
    } catch (e) {
      if (i >= 50) throw e;
      await sleep(200);
    }
  }
}

/** The `jobs` folders at most `depth` levels below `dir`. */
function jobDirs(dir: string, depth: number): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory())
    .flatMap((e) => (e.name === 'jobs' ? [path.join(dir, e.name)] : depth > 0 ? jobDirs(path.join(dir, e.name), depth - 1) : []));
}

/** Pids of the processes in group `pgid` that are not zombies (/proc/<pid>/stat: state, ppid, pgrp). */
export function liveMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') out.push(Number(pid));
    } catch {
      /* gone while reading */
    }
  }
  return out;
}

/** Waits for `file` to exist (a job's pid or exit file), failing after `ms`. */
export async function waitFile(file: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!fs.existsSync(file)) {
    if (Date.now() > end) throw new Error(`${file} did not appear in ${ms} ms`);
    await sleep(20);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
