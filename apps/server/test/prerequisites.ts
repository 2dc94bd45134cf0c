import fs from 'node:fs';
import { beforeEach } from 'vitest';

/**
 * What a test needs from the machine. A missing piece fails every test of the file with the reason and the
 * fix — never a skip that reports green (docs/testing.md); `scripts/test.mjs` checks the same before a run.
 */

/**
 * Runs `check` while the enclosing `describe` is collected. When it throws, every test of that describe fails
 * with its message (a failing `beforeAll` would leave them reported as skipped) and this answers undefined:
 * the file's `beforeAll` then sets nothing up.
 */
export function prerequisite<T>(check: () => T): T | undefined {
  try {
    return check();
  } catch (e) {
    beforeEach(() => {
      throw e;
    });
    return undefined;
  }
}

/** The OpenSSH server binary (`SSHD_PATH`, default /usr/sbin/sshd); answers its path. */
export function requireSshd(): string {
  const sshd = process.env.SSHD_PATH || '/usr/sbin/sshd';
  if (!fs.existsSync(sshd)) throw new Error(`OpenSSH server not found at ${sshd}: install openssh-server (scripts/provision.sh does), or set SSHD_PATH`);
  return sshd;
}

/** Root, for tests that create Linux users or start daemons as them. */
export function requireRoot(why: string): void {
  if (process.getuid?.() !== 0) throw new Error(`this test must run as root: ${why}`);
}
