import { execFile, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The one privileged component of file access (docs/adr/0004-files-as-the-user.md). It listens on a Unix
 * socket only the file service's user may open; for each connection it reads one line `{"account": …}`,
 * looks the account up in the system's user database (never trusting a uid from the caller), refuses
 * root, system users and anything outside the configured uid range, makes sure the account's home and
 * upload staging exist and belong to it, and starts a worker process with the account's uid/gid (libuv
 * drops supplementary groups), handing it the connection itself. From then on the file service talks to
 * the worker; the launcher never sees a byte of file data.
 */
export interface LauncherOptions {
  /** Unix socket to listen on. */
  socketPath: string;
  /** The only user (besides root) allowed to connect: the file service's uid (and gid). */
  clientUid: number;
  clientGid: number;
  /** The center's storage root: homes under `home/<account>`, staging under `.uploads/<account>`. */
  storageRoot: string;
  /** Accounts the launcher may act as (inclusive); never below 1000, never root. */
  uidMin: number;
  uidMax: number;
  log?: (msg: string) => void;
}

const ACCOUNT = /^[a-z_][a-z0-9_-]{0,31}$/;
/** A team id as the team module makes them (one path segment, never `.` or `..`). */
const TEAM = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const WORKER = path.join(import.meta.dirname, 'worker-main.ts');

interface Passwd {
  uid: number;
  gid: number;
}

/**
 * The launcher's own node flags for the worker, with loaders (`--import tsx`) resolved to absolute URLs:
 * the worker starts in `/`, where a bare package name would not resolve.
 */
function workerExecArgv(): string[] {
  return process.execArgv.map((arg, i, all) => (all[i - 1] === '--import' && !/^(\.|\/|file:)/.test(arg) ? import.meta.resolve(arg) : arg));
}

async function lookup(account: string): Promise<Passwd | null> {
  try {
    const { stdout } = await promisify(execFile)('getent', ['passwd', account]);
    const f = stdout.trim().split(':');
    return f[0] === account ? { uid: Number(f[2]), gid: Number(f[3]) } : null;
  } catch {
    return null;
  }
}

/** A directory of the account: made if missing (mode 0700), refused if it is anything but a directory. */
async function ownDir(dir: string, pw: Passwd) {
  try {
    await fs.mkdir(dir, { mode: 0o700 });
    await fs.chown(dir, pw.uid, pw.gid);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = await fs.lstat(dir);
  if (!st.isDirectory()) throw new Error(`${dir} 不是目录`);
  // A home made before the account was a real user (e.g. by an older gateway) is handed over once.
  if (st.uid === 0) {
    await fs.chown(dir, pw.uid, pw.gid);
    await fs.chmod(dir, 0o700);
  }
  else if (st.uid !== pw.uid) throw new Error(`${dir} 属于其他用户`);
}

export async function startLauncher(opts: LauncherOptions): Promise<{ server: net.Server; close: () => Promise<void> }> {
  const uidMin = Math.max(1000, opts.uidMin);
  const children = new Set<ChildProcess>();
  const log = opts.log ?? (() => {});
  await fs.mkdir(path.join(opts.storageRoot, 'home'), { recursive: true, mode: 0o755 });
  // Accounts reach their own staging directory below this one, and cannot list the others.
  await fs.mkdir(path.join(opts.storageRoot, '.uploads'), { recursive: true });
  await fs.chmod(path.join(opts.storageRoot, '.uploads'), 0o711);
  // The file service's own data (the instant-upload index) lives beside the homes, owned by it alone.
  await fs.mkdir(path.join(opts.storageRoot, '.meta'), { recursive: true, mode: 0o700 });
  await fs.chown(path.join(opts.storageRoot, '.meta'), opts.clientUid, opts.clientGid);
  await fs.rm(opts.socketPath, { force: true });

  const refuse = (socket: net.Socket, message: string) => {
    log(`refused: ${message}`);
    const payload = Buffer.from(JSON.stringify({ error: { message } }));
    const header = Buffer.alloc(5);
    header.writeUInt32BE(payload.length, 0);
    header.writeUInt8(2, 4); // RES
    socket.end(Buffer.concat([header, payload]));
  };

  const handle = async (socket: net.Socket, line: string) => {
    let account: string;
    let team: string | undefined;
    try {
      const req = JSON.parse(line) as { account?: unknown; team?: unknown };
      account = String(req.account ?? '');
      team = req.team === undefined ? undefined : String(req.team);
    } catch {
      return refuse(socket, '请求格式错误');
    }
    if (!ACCOUNT.test(account)) return refuse(socket, '集群账号名称不合法');
    if (team !== undefined && !TEAM.test(team)) return refuse(socket, '团队标识不合法');
    const pw = await lookup(account);
    if (!pw) return refuse(socket, `集群账号 ${account} 不存在`);
    if (pw.uid === 0 || pw.gid === 0 || pw.uid < uidMin || pw.uid > opts.uidMax) return refuse(socket, `集群账号 ${account} 不在允许的范围内`);
    const home = path.join(opts.storageRoot, 'home', account);
    const staging = path.join(opts.storageRoot, '.uploads', account);
    try {
      await ownDir(home, pw);
      await ownDir(staging, pw);
    } catch (e) {
      return refuse(socket, (e as Error).message);
    }
    // A team's folder (ADR 0018) is the worker's root instead of the home: it must already be there, made by
    // the platform — never created, chowned or chmod-ed here (that would rewrite its ACL). Whether the account
    // may pass it is the kernel's answer to the worker, from the folder's ACL.
    const root = team === undefined ? home : path.join(opts.storageRoot, 'teams', team);
    if (team !== undefined) {
      const st = await fs.lstat(root).catch(() => null);
      if (!st?.isDirectory()) return refuse(socket, '团队空间不存在');
    }
    const child = fork(WORKER, [], {
      uid: pw.uid,
      gid: pw.gid,
      cwd: '/',
      // Nothing of the launcher's environment (it may hold secrets): just what node needs.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
      execArgv: workerExecArgv(),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    child.once('error', (e) => refuse(socket, e.message));
    child.once('spawn', () => {
      child.send({ home: root, staging, shared: team !== undefined }, socket, (err) => {
        if (err) refuse(socket, err.message);
      });
    });
  };

  const server = net.createServer((socket) => {
    let line = '';
    const onData = (b: Buffer) => {
      line += b.toString('utf8');
      const nl = line.indexOf('\n');
      if (nl < 0) {
        if (line.length > 4096) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      // The caller waits for the worker's "ready": anything after the line is a protocol error.
      if (nl !== line.length - 1) return socket.destroy();
      void handle(socket, line.slice(0, nl));
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.socketPath, () => resolve());
  });
  await fs.chown(opts.socketPath, opts.clientUid, opts.clientGid);
  await fs.chmod(opts.socketPath, 0o600);
  log(`listening on ${opts.socketPath}`);
  return {
    server,
    close: async () => {
      for (const c of children) c.kill('SIGTERM');
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
