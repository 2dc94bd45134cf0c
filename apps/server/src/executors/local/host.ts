import fs from 'node:fs';
import net from 'node:net';

/** The few calls on the host the local executor makes: its state files, /proc, signals, a free port. */

export function readOr(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export function writeAtomic(file: string, data: string) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/** Whether process `pid` runs with `arg` as one of its arguments (our supervisor of that job, not a reused pid). */
export function cmdlineHas(pid: number, arg: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(arg);
  } catch {
    return false;
  }
}

/** process.kill that answers whether the target exists instead of throwing. */
export function signal(target: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, sig);
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
