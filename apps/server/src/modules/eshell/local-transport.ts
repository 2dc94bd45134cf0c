import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { Once, type ShellChannel, type ShellOpenOptions, type ShellTransport } from './shell-transport';

const BRIDGE = path.join(import.meta.dirname, 'pty-bridge.py');
const SHELL = fs.existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
/** The system Python when there is one (Debian), else whatever `python3` the PATH finds. */
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export interface LocalShellTarget {
  /** The account's home on this host (the center's storage). */
  home: string;
  account: string;
  centerId: string;
}

/**
 * The embedded default (architecture.md, "web shell"): a shell of the gateway's own OS user on this host,
 * started in the user's home on the center's storage, through a real pseudo-terminal made by a small Python
 * bridge (pty-bridge.py: pty.fork, TIOCSWINSZ through a control pipe). Offered only when the deployment
 * enables it explicitly (LOCAL_SHELL=true, a single-user machine; eshell.service.ts decides).
 */
export class LocalShellTransport implements ShellTransport {
  readonly kind = 'local' as const;
  constructor(private readonly target: LocalShellTarget) {}

  async open(opts: ShellOpenOptions): Promise<ShellChannel> {
    const { home, account, centerId } = this.target;
    const cwd = path.join(home, ...opts.cwd);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      USER: account,
      LOGNAME: account,
      SHELL,
      TERM: 'xterm-256color',
      LANG: process.env.LANG ?? 'C.UTF-8',
      // Renamed on the way: a wrapper script between here and the bridge (a pyenv shim) would drop PS1,
      // which non-interactive bash unsets; the bridge names it PS1 again for the shell.
      SUANLI_PS1: `${account}@${centerId}:\\w\\$ `,
    };
    const args = [BRIDGE, String(opts.cols), String(opts.rows), cwd, SHELL, ...(SHELL === '/bin/bash' ? ['--noprofile', '--norc', '-i'] : ['-i'])];
    const child = spawn(PYTHON, args, { env, cwd: home, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    const ctl = child.stdio[3] as Writable;
    const exit = new Once<{ code: number | null; error?: string }>();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.on('error', (err) => exit.emit({ code: null, error: err.message }));
    // The bridge exits with the shell's status; killed itself (the gateway closing it): no status.
    child.on('close', (code) => exit.emit(code === null ? { code: null } : { code, ...(code === 1 && stderr.includes('Traceback') ? { error: stderr } : {}) }));
    for (const s of [child.stdin, ctl]) s.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return {
      write: (d) => void (child.stdin.writable && child.stdin.write(d)),
      resize: (cols, rows) => void (ctl.writable && ctl.write(`${cols} ${rows}\n`)),
      pause: () => child.stdout.pause(),
      resume: () => child.stdout.resume(),
      close: () => {
        child.stdin.end();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      },
      onData: (l) => void child.stdout.on('data', l),
      onExit: (l) => exit.on(l),
    };
  }
}
