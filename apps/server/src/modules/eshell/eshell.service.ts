import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ErrorCode,
  errorMessage,
  SHELL_CLOSE_IDLE,
  SHELL_CLOSE_REFUSED,
  SHELL_COLS_MAX,
  SHELL_ROWS_MAX,
  SHELL_TEXT,
  SOCKET_CLOSE_BAD_TOKEN,
  type ShellCenter,
  type ShellServerFrame,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, invalid, notFound } from '../../errors';
import type { Revocation } from '../../realtime/bus';
import type { AccessLogService } from '../access-log/access-log.service';
import type { Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import { LocalShellTransport } from './local-transport';
import type { ShellChannel, ShellTransport } from './shell-transport';
import { SshShellTransport, type ShellLogin } from './ssh-transport';

/**
 * The seam to the key pairs module: the login of a user's cluster account on a center's login node with
 * the per-user key the platform holds and installed in that account's authorized_keys.
 */
export interface ShellKeySource {
  /** `token`: the caller's session, with which the center's file service installs the key. */
  loginFor(userId: string, token: string, centerId: string): Promise<ShellLogin>;
}

export interface EshellOptions {
  /** No input for this long closes the shell (status line 空闲超时，连接已关闭). */
  idleTimeoutMs: number;
  /** Open shells per user on this gateway process. */
  maxSessionsPerUser: number;
  /** Whether the deployment enabled the local shell (LOCAL_SHELL=true); never implied by an address. */
  localShell: boolean;
  /** How often sessions behind open shells are re-checked for revocation (revocations heard are at once). */
  recheckMs?: number;
}

export const DEFAULT_SHELL_IDLE_MS = 30 * 60_000;
export const DEFAULT_SHELL_MAX_SESSIONS = 8;

/** What the socket gives the service: where frames go. */
export interface ShellSink {
  status(frame: ShellServerFrame): void;
  output(chunk: Buffer): void;
  close(code: number, reason: string): void;
  /** Bytes queued to the browser and not yet sent. */
  backlog(): number;
}

export interface ShellRequest {
  centerId?: unknown;
  cwd?: unknown;
  cols?: unknown;
  rows?: unknown;
}

/** What the socket drives once the shell is open. */
export interface LiveShell {
  input(data: Buffer | string): void;
  resize(cols: number, rows: number): void;
  /** The browser went away (or the gateway stops): hang up and record why. */
  end(reason: string): void;
}

interface Live {
  id: number;
  userId: string;
  sessionId: string;
  tokenHash: string;
  lastInput: number;
  sink: ShellSink;
  channel?: ShellChannel;
  recordId?: string;
  ended: boolean;
  end(reason: string, code?: number, closeReason?: string, text?: string): void;
}

const MAX_BACKLOG = 1024 * 1024;
const MAX_CWD = 1024;

function intIn(v: unknown, field: string, min: number, max: number, dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(field, `应为 ${min}–${max} 的整数`);
  return n;
}

/** `/`, `/docs/a` → segments below the home; `..`, `.`, backslash or NUL anywhere → 1308 (never leaves the home). */
export function cwdSegments(v: unknown): string[] {
  if (v === undefined || v === '') return [];
  if (typeof v !== 'string' || v.length > MAX_CWD) throw invalid('cwd', `应为不超过 ${MAX_CWD} 个字符的路径`);
  if (!v.startsWith('/')) throw new AppError(ErrorCode.ILLEGAL_PATH);
  const segs = v.split('/').filter(Boolean);
  if (segs.some((s) => s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) throw new AppError(ErrorCode.ILLEGAL_PATH);
  return segs;
}

/**
 * The web shell (domain.md "Web shell"; architecture.md: SSH to the center's login node with the user's
 * platform key, or the embedded default's local shell when the deployment enables it, LOCAL_SHELL). Holds
 * the shells open on this process: idle timeout, per-user limit, hang-up on session revocation, and a
 * record of each session in the access log.
 */
export class EshellService {
  private readonly live = new Map<number, Live>();
  private nextId = 1;
  private timer: NodeJS.Timeout;
  private lastRecheck = performance.now();
  private rechecking = false;
  /** Record updates in flight, awaited before the database closes. */
  private readonly writes = new Set<Promise<unknown>>();
  /**
   * Records this process opened whose end is not written yet: they are counted as live shells here, not as
   * another gateway's (a shell closed a moment ago must not block the next one while its end is written).
   */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly centerList: CenterConfig[],
    private readonly clusterAccounts: ClusterAccountService,
    private readonly accessLog: AccessLogService,
    private readonly keys: ShellKeySource | undefined,
    private readonly checkSessions: (sessionIds: string[]) => Promise<Map<string, number>>,
    private opts: EshellOptions,
  ) {
    this.timer = this.startTimer();
  }

  /** Tests shorten the idle timeout. */
  setOptions(o: Partial<EshellOptions>) {
    this.opts = { ...this.opts, ...o };
    clearInterval(this.timer);
    this.timer = this.startTimer();
  }

  /** Which centers offer a shell to this caller, and how (the page's center picker). */
  centers(_p: Principal): ShellCenter[] {
    return this.centerList.map((c) => ({ centerId: c.id, centerName: c.name, ...this.transportOf(c) }));
  }

  private transportOf(c: CenterConfig): Pick<ShellCenter, 'transport' | 'note'> {
    if ((c.shell ?? (c.scheduler.kind === 'slurm' ? 'ssh' : 'local')) === 'ssh') {
      if (this.keys) return { transport: 'ssh', note: '' };
      return { transport: 'none', note: '该分中心的登录节点密钥尚未配置，暂不能打开终端' };
    }
    if (this.opts.localShell) return { transport: 'local', note: '终端运行在平台所在的服务器上，在您的主目录中打开' };
    return { transport: 'none', note: '本地终端未开启：仅在管理员为单用户本机部署明确开启时提供；生产部署请通过 SSH 连接分中心登录节点' };
  }

  liveCount(userId?: string) {
    let n = 0;
    for (const l of this.live.values()) if (!userId || l.userId === userId) n++;
    return n;
  }

  /**
   * Opens a shell for the caller and streams it to `sink`. Refusals (bad parameter, unknown center, path
   * outside the home, too many shells, not offered, login node unreachable) end as a status line and a
   * SHELL_CLOSE_REFUSED close whose reason is the error code.
   */
  async open(p: Principal & { tokenHash: string; token: string }, req: ShellRequest, sink: ShellSink, clientIp = ''): Promise<LiveShell> {
    const live: Live = {
      id: this.nextId++,
      userId: p.userId,
      sessionId: p.sessionId,
      tokenHash: p.tokenHash,
      lastInput: performance.now(),
      sink,
      ended: false,
      end: (reason, code = 1000, closeReason = reason, text = SHELL_TEXT.closed) => {
        if (live.ended) return;
        live.ended = true;
        this.live.delete(live.id);
        live.channel?.close();
        if (live.recordId) this.closeRecord(live.recordId, reason);
        sink.status({ type: 'status', state: 'closed', text });
        sink.close(code, closeReason);
      },
    };
    const handle: LiveShell = {
      input: (d) => {
        live.lastInput = performance.now();
        live.channel?.write(d);
      },
      resize: (cols, rows) => {
        if (Number.isInteger(cols) && Number.isInteger(rows) && cols >= 1 && rows >= 1 && cols <= SHELL_COLS_MAX && rows <= SHELL_ROWS_MAX) {
          live.channel?.resize(cols, rows);
        }
      },
      end: (reason) => live.end(reason),
    };
    try {
      const centerId = typeof req.centerId === 'string' ? req.centerId : '';
      if (!centerId) throw invalid('centerId', '不能为空');
      const center = this.centerList.find((c) => c.id === centerId);
      if (!center) throw notFound('算力分中心');
      const cwd = cwdSegments(req.cwd);
      const cols = intIn(req.cols, 'cols', 1, SHELL_COLS_MAX, 80);
      const rows = intIn(req.rows, 'rows', 1, SHELL_ROWS_MAX, 24);
      if (this.liveCount(p.userId) >= this.opts.maxSessionsPerUser) throw new AppError(ErrorCode.SHELL_TOO_MANY_SESSIONS);
      const { transport: kind, note } = this.transportOf(center);
      if (kind === 'none') throw new AppError(ErrorCode.SHELL_NOT_OFFERED, `${center.name}：${note}`);
      // Taken here before anything is awaited, so two opens in this process cannot both pass the check.
      this.live.set(live.id, live);
      // The limit is per user, not per gateway: the user's shells on other replicas are their open records.
      const elsewhere = (await this.accessLog.openIdsOfUser(p.userId, 'shell')).filter((id) => !this.recorded.has(id)).length;
      if (elsewhere + this.liveCount(p.userId) > this.opts.maxSessionsPerUser) throw new AppError(ErrorCode.SHELL_TOO_MANY_SESSIONS);
      sink.status({ type: 'status', state: 'connecting', text: SHELL_TEXT.connecting });

      const account = await this.clusterAccounts.ensure(p.userId, center.id);
      let transport: ShellTransport;
      if (kind === 'local') {
        const home = account.homeDir;
        if (cwd.length) {
          // The folder must exist and, symlinks resolved, still be inside the home.
          const real = await fs.realpath(path.join(home, ...cwd)).catch(() => null);
          if (!real) throw new AppError(ErrorCode.DIR_NOT_FOUND);
          const realHome = await fs.realpath(home);
          if (real !== realHome && !real.startsWith(realHome + path.sep)) throw new AppError(ErrorCode.ILLEGAL_PATH);
          if (!(await fs.stat(real)).isDirectory()) throw new AppError(ErrorCode.DIR_NOT_FOUND);
        }
        transport = new LocalShellTransport({ home, account: account.account, centerId: center.id });
      } else {
        const login = await this.keys!.loginFor(p.userId, p.token, center.id);
        transport = new SshShellTransport({ ...login, hostKeySha256: login.hostKeySha256 ?? center.loginHostKey });
      }
      let channel: ShellChannel;
      try {
        channel = await transport.open({ cols, rows, cwd });
      } catch (err) {
        throw new AppError(ErrorCode.SHELL_CONNECT_FAILED, `${errorMessage(ErrorCode.SHELL_CONNECT_FAILED)}：${(err as Error).message}`);
      }
      if (live.ended) {
        channel.close();
        return handle;
      }
      live.channel = channel;
      channel.onData((chunk) => {
        sink.output(chunk);
        // The browser reads slower than the shell prints: stop reading the terminal until it catches up.
        if (sink.backlog() > MAX_BACKLOG) {
          channel.pause();
          const wait = setInterval(() => {
            if (live.ended || sink.backlog() < MAX_BACKLOG / 4) {
              clearInterval(wait);
              channel.resume();
            }
          }, 50);
        }
      });
      channel.onExit(({ error }) => live.end(error ? 'error' : 'exited', 1000, error ? 'error' : 'exited', error ? SHELL_TEXT.closed : SHELL_TEXT.exited));
      live.recordId = await this.accessLog.open({
        kind: 'shell',
        userId: p.userId,
        centerId: center.id,
        account: account.account,
        target: kind,
        clientIp,
        // The shell lives in this process: renewed while it runs, ended by another gateway if this one dies.
        held: true,
      });
      this.recorded.add(live.recordId);
      if (live.ended) {
        // Closed while the record was written: the record ends too.
        await this.closeRecord(live.recordId, 'closed');
        return handle;
      }
      const where = kind === 'ssh' ? '登录节点' : '本地终端';
      sink.status({ type: 'status', state: 'connected', text: `已连接到 ${center.name} ${where}（账号 ${account.account}）` });
      live.lastInput = performance.now();
      return handle;
    } catch (err) {
      const e = err instanceof AppError ? err : new AppError(ErrorCode.SHELL_CONNECT_FAILED);
      live.end('refused', SHELL_CLOSE_REFUSED, String(e.code), e.message);
      return handle;
    }
  }

  private closeRecord(id: string, reason: string) {
    const done = this.accessLog.close(id, reason).finally(() => this.recorded.delete(id));
    this.track(done);
    return done;
  }

  private unfollow: (() => void) | undefined;

  /** Follows a SessionService's revocations (`onRevoked`) until close. */
  followRevocations(subscribe: (listener: (r: Revocation) => void) => () => void) {
    this.unfollow = subscribe((r) => this.revoked(r));
  }

  /** A session was revoked (logout, password change…): its shells hang up at once. */
  revoked(r: Revocation) {
    for (const l of [...this.live.values()]) {
      const hit =
        'sessionId' in r ? l.sessionId === r.sessionId : 'tokenHash' in r ? l.tokenHash === r.tokenHash : l.userId === r.userId && l.sessionId !== r.exceptSessionId;
      if (hit) l.end('revoked', SOCKET_CLOSE_BAD_TOKEN, String(ErrorCode.SESSION_REVOKED), SHELL_TEXT.revoked);
    }
  }

  private startTimer() {
    const t = setInterval(() => this.sweep(), Math.max(100, Math.min(5_000, Math.floor(this.opts.idleTimeoutMs / 4))));
    t.unref();
    return t;
  }

  private sweep() {
    const now = performance.now();
    for (const l of [...this.live.values()]) {
      if (l.channel && now - l.lastInput >= this.opts.idleTimeoutMs) l.end('idle', SHELL_CLOSE_IDLE, 'idle', SHELL_TEXT.idle);
    }
    if (!this.rechecking && this.live.size && now - this.lastRecheck >= (this.opts.recheckMs ?? 60_000)) {
      this.lastRecheck = now;
      this.rechecking = true;
      void this.recheck().finally(() => (this.rechecking = false));
    }
  }

  /**
   * Sessions revoked where this process did not hear it (another gateway without a bus, the database).
   * Typing into a shell is activity the session's idle clock does not see, so only a revoked or deleted
   * session ends a shell here; the shell's own idle timeout covers inactivity.
   */
  private async recheck() {
    const lives = [...this.live.values()];
    let bad: Map<string, number>;
    try {
      bad = await this.checkSessions([...new Set(lives.map((l) => l.sessionId))]);
    } catch {
      return;
    }
    for (const l of lives) {
      const code = bad.get(l.sessionId);
      if (code !== undefined && code !== ErrorCode.SESSION_EXPIRED) l.end('revoked', SOCKET_CLOSE_BAD_TOKEN, String(code), SHELL_TEXT.revoked);
    }
  }

  /** The gateway stops: every shell hangs up, recorded as `server`. */
  async close() {
    clearInterval(this.timer);
    this.unfollow?.();
    const lives = [...this.live.values()];
    for (const l of lives) l.end('server', 1001, 'server closing');
    await Promise.all([...this.writes]);
  }

  private track(p: Promise<unknown>) {
    const w = p.catch(() => undefined).finally(() => this.writes.delete(w));
    this.writes.add(w);
  }
}
