import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KEYPAIR_BASE, type KeyPair, type KeyPairGenerated } from '@suanli/contracts';
import { body, type TestApp } from './harness';

/**
 * A user's own login on a harness cluster's login node, the way a user gets one: a key pair generated through
 * the console's API, installed on the center, then OpenSSH's `ssh` with only that key (no agent, no prompts).
 * The session's environment is the login node's (scripts/slurm/sshd.sh gives it the cluster's SLURM_CONF), so
 * `sbatch` / `srun` reach the scheduler as on a real login node — nothing of this process's environment leaks in.
 */
export interface SshLogin {
  keyFile: string;
  account: string;
  port: number;
}

/** Generates a key pair for the session `token`, installs it on `centerId`, writes the private key into `dir`. */
export async function installedLogin(t: TestApp, token: string, centerId: string, port: number, dir: string): Promise<SshLogin> {
  const call = (url: string, payload: object) => t.app.inject({ method: 'POST', url: `${KEYPAIR_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  const gen = await call('/keypairs/generate', { name: `登录 ${centerId}`, type: 'ed25519' });
  if (gen.message.code !== 0) throw new Error(`generate: ${gen.message.message}`);
  const { keyPair, privateKey } = gen.data as KeyPairGenerated;
  const keyFile = path.join(dir, `key-${keyPair.id}`);
  fs.writeFileSync(keyFile, privateKey, { mode: 0o600 });
  const inst = await call(`/keypairs/${keyPair.id}/install`, { subCenterIds: [centerId] });
  if (inst.message.code !== 0) throw new Error(`install: ${inst.message.message}`);
  return { keyFile, account: (inst.data as KeyPair).installs[0].account, port };
}

export function sshArgs(login: Pick<SshLogin, 'keyFile' | 'port'>, user: string, command: string): string[] {
  return [
    '-i', login.keyFile, '-p', String(login.port),
    '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'LogLevel=ERROR', '-o', 'ConnectTimeout=10',
    `${user}@127.0.0.1`, command,
  ];
}

/** Runs `command` in a login session and waits: exit status and trimmed output. */
export function ssh(login: Pick<SshLogin, 'keyFile' | 'port'>, user: string, command: string): { status: number | null; out: string; err: string } {
  const r = spawnSync('ssh', sshArgs(login, user, command), { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH } });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

/** Starts `command` in a login session and leaves it running (an interactive `srun`, say). */
export function sshSpawn(login: SshLogin, command: string): ChildProcess {
  return spawn('ssh', sshArgs(login, login.account, command), { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
}
