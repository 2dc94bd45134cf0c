import { createHash } from 'node:crypto';
import { Client, type ClientChannel } from 'ssh2';
import { Once, type ShellChannel, type ShellOpenOptions, type ShellTransport } from './shell-transport';

/** Where and as whom to log in: the center's login node, the user's cluster account, its platform key. */
export interface ShellLogin {
  host: string;
  port: number;
  username: string;
  /** OpenSSH private key the platform holds for this user and center (never a shared key, never a password). */
  privateKey: string | Buffer;
  /** `SHA256:…` of the login node's host key when known; the connection is refused on a mismatch. */
  hostKeySha256?: string;
}

/** Quotes for a POSIX shell: the folder name goes inside single quotes. */
function shq(s: string) {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Production transport (architecture.md, "web shell"): ssh2 to the center's login node as the user's
 * cluster account with the platform-held key, a pty of the browser terminal's size, the login shell started
 * in the requested folder of the home (`cd -- "$HOME"/…`, so the remote side names the home).
 */
export class SshShellTransport implements ShellTransport {
  readonly kind = 'ssh' as const;
  constructor(
    private readonly login: ShellLogin,
    private readonly readyTimeoutMs = 15_000,
  ) {}

  open(opts: ShellOpenOptions): Promise<ShellChannel> {
    const { host, port, username, privateKey, hostKeySha256 } = this.login;
    const conn = new Client();
    const exit = new Once<{ code: number | null; error?: string }>();
    return new Promise<ShellChannel>((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (!settled) {
          settled = true;
          reject(err);
        }
        exit.emit({ code: null, error: err.message });
        conn.end();
      };
      conn.on('error', fail);
      conn.on('close', () => fail(new Error('connection closed')));
      conn.on('ready', () => {
        const pty = { term: 'xterm-256color', cols: opts.cols, rows: opts.rows, width: 0, height: 0 };
        const dir = opts.cwd.length ? `"$HOME"/${opts.cwd.map(shq).join('/')}` : '"$HOME"';
        const command = `cd -- ${dir} 2>/dev/null || cd; exec "\${SHELL:-/bin/bash}" -l`;
        conn.exec(command, { pty }, (err, stream: ClientChannel) => {
          if (err) return fail(err);
          settled = true;
          let code: number | null = null;
          stream.on('exit', (c: number | null) => (code = c));
          stream.on('close', () => {
            exit.emit({ code });
            conn.end();
          });
          resolve({
            write: (d) => void (stream.writable && stream.write(d)),
            resize: (cols, rows) => void stream.setWindow(rows, cols, 0, 0),
            pause: () => stream.pause(),
            resume: () => stream.resume(),
            close: () => {
              stream.close();
              conn.end();
            },
            onData: (l) => {
              stream.on('data', l);
              stream.stderr.on('data', l);
            },
            onExit: (l) => exit.on(l),
          });
        });
      });
      conn.connect({
        host,
        port,
        username,
        privateKey,
        readyTimeout: this.readyTimeoutMs,
        keepaliveInterval: 30_000,
        hostVerifier: hostKeySha256
          ? (key: Buffer) => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}` === hostKeySha256
          : undefined,
      });
    });
  }
}
