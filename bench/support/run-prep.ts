import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const MB = 1024 * 1024;
const zeros = Buffer.alloc(MB);

/**
 * Before every timed run on this VM (docs/performance.md, "Upload"): the first write into guest memory the host
 * has reclaimed costs ~2.5 CPU-s per GiB of kernel time, and pages freed for a few seconds are reclaimed again,
 * so whichever side of a comparison got fresh memory lost by 2×. Flush earlier writes (`sync`, so no write-back
 * of a previous run competes), then write and delete a scratch file as large as the run's output in `dir`, so
 * the run's page cache lands in memory just touched.
 */
export function prepareRun(dir: string, mb: number) {
  execFileSync('sync');
  const scratch = path.join(dir, 'scratch.bin');
  const fd = fs.openSync(scratch, 'w');
  try {
    for (let i = 0; i < mb; i++) fs.writeSync(fd, zeros);
  } finally {
    fs.closeSync(fd);
  }
  fs.rmSync(scratch);
}

/** CPU seconds a process has used (utime + stime from /proc, USER_HZ 100). */
export function cpuOf(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
