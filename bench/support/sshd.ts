// An OpenSSH sshd on loopback for a benchmark's `rsync -e ssh` baseline, as the Slurm harness starts its
// login node (scripts/slurm/sshd.sh): its own host key, public keys only, a client key generated for the run.
// It admits the user running the bench (root on this machine) with that one key, read from the run's folder
// (AuthorizedKeysFile is absolute; StrictModes is off because the folder lies under the world-writable /tmp,
// which sshd's path check refuses — the run's folder itself is 0700).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './proc';

export interface LoopbackSshd {
  port: number;
  /** sshd's pid: the logins it served are its reaped children (their CPU is in its cutime/cstime). */
  pid: number;
  user: string;
  /** `-e` for rsync: ssh on the port with the run's key, no host-key prompts, no agent, no config files. */
  rshell: string;
  stop(): void;
}

export async function startLoopbackSshd(dir: string): Promise<LoopbackSshd> {
  const sshd = fs.existsSync('/usr/sbin/sshd') ? '/usr/sbin/sshd' : 'sshd';
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  const clientKey = path.join(dir, 'client_ed25519');
  for (const k of [hostKey, clientKey]) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', k]);
  fs.copyFileSync(`${clientKey}.pub`, path.join(dir, 'authorized_keys'));
  const user = os.userInfo().username;
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `PermitRootLogin ${user === 'root' ? 'prohibit-password' : 'no'}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'StrictModes no',
      `AllowUsers ${user}`,
      'X11Forwarding no',
      'PrintMotd no',
      '',
    ].join('\n'),
  );
  execFileSync(sshd, ['-t', '-f', config]);
  // -D: stays in the foreground as our child, so it is ended with the bench.
  const child = spawn(sshd, ['-D', '-f', config, '-E', path.join(dir, 'sshd.log')], { stdio: 'ignore' });
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (i > 50 || child.exitCode !== null) throw new Error(`sshd did not start: ${fs.readFileSync(path.join(dir, 'sshd.log'), 'utf8').slice(-500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const rshell = ['ssh', '-p', String(port), '-i', clientKey, '-F', '/dev/null', '-o', 'StrictHostKeyChecking=no', '-o', `UserKnownHostsFile=${path.join(dir, 'known_hosts')}`, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR'].join(' ');
  // One login proves the key works before anything is timed.
  execFileSync('ssh', [...rshell.split(' ').slice(1), `${user}@127.0.0.1`, 'true']);
  return {
    port,
    pid: child.pid!,
    user,
    rshell,
    stop: () => {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
    },
  };
}
