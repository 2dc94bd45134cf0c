import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellChannel } from './shell-transport';
import { SshShellTransport, type ShellLogin } from './ssh-transport';
import { prerequisite, requireSshd } from '../../../test/prerequisites';

/**
 * The SSH transport against a real OpenSSH sshd this test starts on loopback (its own config, host key and
 * authorized_keys; the login is this machine's current user, as tests run as root here). The Slurm tier's
 * eshell.slurm.int.test.ts logs in as a cluster account to the harness's login-node sshd instead.
 */

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitPort(port: number, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const c = net.connect(port, '127.0.0.1', () => (c.end(), r(true)));
      c.on('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`sshd did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Collects a channel's output; `wait` polls it for a pattern from an offset. */
function collect(ch: ShellChannel) {
  let out = '';
  ch.onData((b) => (out += b.toString('utf8')));
  return {
    text: () => out,
    async wait(re: RegExp, from = 0, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const m = out.slice(from).match(re);
        if (m) return m;
        if (Date.now() > end) throw new Error(`no ${re} in: ${out.slice(-500)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

describe('SSH shell transport (real sshd)', () => {
  let dir: string;
  let sshd: ChildProcess;
  let login: ShellLogin;
  let hostFp: string;
  const user = os.userInfo().username;
  const home = os.userInfo().homedir;
  const folder = `.suanli-eshell-test-${process.pid}`;

  // No sshd: every test below fails with the reason; nothing is skipped (docs/testing.md).
  const sshdPath = prerequisite(requireSshd);

  beforeAll(async () => {
    if (!sshdPath) return;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-sshd-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'suanli-platform', '-f', path.join(dir, 'user')]);
    fs.copyFileSync(path.join(dir, 'user.pub'), path.join(dir, 'authorized_keys'));
    hostFp = execFileSync('ssh-keygen', ['-l', '-f', path.join(dir, 'host.pub')]).toString().split(' ')[1];
    const port = await freePort();
    fs.writeFileSync(
      path.join(dir, 'sshd_config'),
      [
        'ListenAddress 127.0.0.1',
        `Port ${port}`,
        `HostKey ${path.join(dir, 'host')}`,
        `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
        `PidFile ${path.join(dir, 'sshd.pid')}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        'PermitRootLogin prohibit-password',
        'PrintMotd no',
        'LogLevel ERROR',
      ].join('\n'),
    );
    fs.mkdirSync('/run/sshd', { recursive: true });
    sshd = spawn(sshdPath, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    await waitPort(port);
    login = { host: '127.0.0.1', port, username: user, privateKey: fs.readFileSync(path.join(dir, 'user')), hostKeySha256: hostFp };
    fs.mkdirSync(path.join(home, folder, '数据 集'), { recursive: true });
  });
  afterAll(() => {
    if (!sshdPath) return;
    sshd?.kill('SIGTERM');
    fs.rmSync(path.join(home, folder), { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with the key, gives a pty of the terminal size that follows resize, starts in the folder, ends on exit', async () => {
    const ch = await new SshShellTransport(login).open({ cols: 90, rows: 30, cwd: [folder, '数据 集'] });
    const out = collect(ch);
    const exited = new Promise<{ code: number | null; error?: string }>((r) => ch.onExit(r));
    ch.write("echo W:$(whoami):E''ND; echo P:$(pwd):E''ND; echo S:$(stty size):E''ND\r");
    expect((await out.wait(/W:(\S+):END/))[1]).toBe(user);
    expect((await out.wait(/P:(.+?):END/))[1]).toBe(path.join(home, folder, '数据 集'));
    expect((await out.wait(/S:(\d+ \d+):END/))[1]).toBe('30 90');

    const from = out.text().length;
    ch.resize(120, 40);
    // The window change reaches the remote pty asynchronously: ask until it shows.
    let size = '';
    for (let i = 0; i < 40 && size !== '40 120'; i++) {
      const at = out.text().length;
      ch.write("echo S:$(stty size):E''ND\r");
      size = (await out.wait(/S:(\d+ \d+):END/, at))[1];
    }
    expect(size).toBe('40 120');
    expect(out.text().length).toBeGreaterThan(from);

    ch.write('exit 3\r');
    expect(await exited).toEqual({ code: 3 });
  });

  it('a missing folder falls back to the home; hanging up ends the channel', async () => {
    const ch = await new SshShellTransport(login).open({ cols: 80, rows: 24, cwd: ['no-such-folder-here'] });
    const out = collect(ch);
    const exited = new Promise((r) => ch.onExit(r));
    ch.write("echo P:$(pwd):E''ND\r");
    expect((await out.wait(/P:(.+?):END/))[1]).toBe(home);
    ch.close();
    await exited;
  });

  it('refuses a wrong key, an unknown host key fingerprint and an unreachable port', async () => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'other')]);
    await expect(new SshShellTransport({ ...login, privateKey: fs.readFileSync(path.join(dir, 'other')) }).open({ cols: 80, rows: 24, cwd: [] })).rejects.toThrow(
      /authentication/i,
    );
    await expect(new SshShellTransport({ ...login, hostKeySha256: 'SHA256:AAAA' }).open({ cols: 80, rows: 24, cwd: [] })).rejects.toThrow();
    await expect(new SshShellTransport({ ...login, port: await freePort() }, 3_000).open({ cols: 80, rows: 24, cwd: [] })).rejects.toThrow();
  });
});
