import { execFileSync } from 'node:child_process';

const USERADD_LOCK = '/run/lock/suanli-useradd.lock';

/**
 * Real Linux users for tests that need unprivileged behaviour (tests run as root here; production does
 * not). Idempotent: a user that exists with the wanted uid is reused; one with another uid is an error.
 */
export function ensureUser(name: string, uid: number): { uid: number; gid: number } {
  const existing = idOf(name);
  if (existing) {
    if (existing.uid !== uid) throw new Error(`user ${name} exists with uid ${existing.uid}, expected ${uid}`);
    return existing;
  }
  // Under the lock scripts/slurm/users.sh takes too: shadow's lock on /etc/passwd fails at once rather than
  // waiting, and the api and Slurm tiers create users at the same time. Checked again under the lock: another
  // file may have made the same user meanwhile.
  const add = 'id -u "$1" >/dev/null 2>&1 || exec useradd --no-create-home --uid "$2" --user-group --shell /usr/sbin/nologin "$1"';
  execFileSync('flock', [USERADD_LOCK, 'sh', '-c', add, 'sh', name, String(uid)], { stdio: 'pipe' });
  const made = idOf(name)!;
  if (made.uid !== uid) throw new Error(`user ${name} exists with uid ${made.uid}, expected ${uid}`);
  return made;
}

export function idOf(name: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { stdio: 'pipe' }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', name], { stdio: 'pipe' }).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Runs a command as `uid/gid` and answers its exit code and output (never throws on a nonzero exit). */
export function runAs(ids: { uid: number; gid: number }, cmd: string, args: string[]): { status: number; output: string } {
  try {
    const output = execFileSync(cmd, args, { uid: ids.uid, gid: ids.gid, stdio: 'pipe', cwd: '/' }).toString();
    return { status: 0, output };
  } catch (e) {
    const err = e as { status?: number; stderr?: Buffer; stdout?: Buffer };
    return { status: err.status ?? -1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}
