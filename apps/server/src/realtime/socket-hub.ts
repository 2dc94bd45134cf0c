import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import {
  ErrorCode,
  SOCKET_CLOSE_BAD_TOKEN,
  SOCKET_CLOSE_IDLE,
  SOCKET_CLOSE_TOO_MANY_FRAMES,
  SOCKET_IDLE_CLOSE_MS,
  SOCKET_MAX_FRAMES_PER_SECOND,
  type WsEvent,
} from '@suanli/contracts';
import { EVERYONE, type EventBus, type Revocation } from './bus';

export interface HubTimings {
  /** Close a socket silent this long (the client sends a keep-alive every 10 s). */
  idleCloseMs: number;
  /** Period of the one timer of the hub: idle sweep, and session re-check when due. */
  sweepMs: number;
  /** How often the sessions behind open sockets are re-checked (revocation, expiry). */
  recheckMs: number;
}

export const DEFAULT_TIMINGS: HubTimings = { idleCloseMs: SOCKET_IDLE_CLOSE_MS, sweepMs: 5_000, recheckMs: 60_000 };

/** A slow reader is dropped rather than buffered without bound; the console re-reads on reconnect. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

interface Conn {
  socket: WebSocket;
  userId: string;
  sessionId: string;
  /** SHA-256 of the token, for revocations that name the token (logout). */
  tokenHash: string;
  /** performance.now() of the last frame from the client. */
  lastSeen: number;
  /** Frames received in the current one-second window, and when that window began. */
  frames: number;
  windowStart: number;
}

/** Answers, for a batch of session ids, the close reason (session code) of those no longer valid. */
export type SessionChecker = (sessionIds: string[]) => Promise<Map<string, number>>;

export interface HubLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Every live socket of this process, by user. One bus subscription fans events out to the user's sockets
 * (serialised once per event); one interval for the whole hub closes silent sockets and re-checks sessions
 * in batches, so an idle socket costs a map entry and nothing else.
 */
export class SocketHub {
  private readonly byUser = new Map<string, Set<Conn>>();
  private readonly conns = new Map<WebSocket, Conn>();
  private readonly unsubscribe: () => void;
  private readonly unfollow: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastRecheck = performance.now();
  private rechecking: Promise<void> | undefined;
  private timings: HubTimings;

  constructor(
    bus: EventBus,
    private readonly checkSessions: SessionChecker,
    private readonly log: HubLogger,
    timings: Partial<HubTimings> = {},
  ) {
    this.timings = { ...DEFAULT_TIMINGS, ...timings };
    this.unsubscribe = bus.subscribe((userId, event) => this.deliver(userId, event));
    this.startTimer();
  }

  /** Tests shorten the timings instead of waiting a minute. */
  setTimings(t: Partial<HubTimings>) {
    this.timings = { ...this.timings, ...t };
    this.startTimer();
  }

  /**
   * `stale`: a revocation happened while the handshake's session was being verified, so the verdict may be
   * outdated; the session is re-checked at once instead of at the next round.
   */
  add(socket: WebSocket, p: { userId: string; sessionId: string; tokenHash: string }, stale = false) {
    const now = performance.now();
    const conn: Conn = { socket, userId: p.userId, sessionId: p.sessionId, tokenHash: p.tokenHash, lastSeen: now, frames: 0, windowStart: now };
    this.conns.set(socket, conn);
    let set = this.byUser.get(p.userId);
    if (!set) this.byUser.set(p.userId, (set = new Set()));
    set.add(conn);
    // Any frame counts as a sign of life: the console's empty keep-alive, or a ping from other clients. Each
    // one also counts toward the per-second bound: a client flooding frames is cut off.
    const seen = () => {
      const t = performance.now();
      conn.lastSeen = t;
      if (t - conn.windowStart >= 1_000) {
        conn.windowStart = t;
        conn.frames = 0;
      }
      if (++conn.frames > SOCKET_MAX_FRAMES_PER_SECOND && this.conns.has(socket)) {
        this.remove(conn);
        socket.close(SOCKET_CLOSE_TOO_MANY_FRAMES, 'too many frames');
        // A peer that keeps sending instead of answering the close is not waited for.
        setTimeout(() => socket.terminate(), 1_000).unref();
      }
    };
    socket.on('message', seen);
    socket.on('ping', seen);
    socket.on('pong', seen);
    socket.once('close', () => this.remove(conn));
    if (stale) void this.recheck([conn]);
  }

  /** Follows the revocations of a SessionService (`onRevoked`) until the hub closes. */
  followRevocations(subscribe: (listener: (r: Revocation) => void) => () => void) {
    this.unfollow.push(subscribe((r) => this.revoked(r)));
  }

  /**
   * A session was revoked (logout, password change, reset; here or, through the bus, on another gateway):
   * its sockets are closed with 4001 at once and get nothing more.
   */
  revoked(r: Revocation) {
    const match: (c: Conn) => boolean =
      'sessionId' in r
        ? (c) => c.sessionId === r.sessionId
        : 'tokenHash' in r
          ? (c) => c.tokenHash === r.tokenHash
          : (c) => c.userId === r.userId && c.sessionId !== r.exceptSessionId;
    const set = 'userId' in r ? this.byUser.get(r.userId) : undefined;
    for (const conn of [...(set ?? this.conns.values())]) {
      if (match(conn)) this.drop(conn, SOCKET_CLOSE_BAD_TOKEN, String(ErrorCode.SESSION_REVOKED));
    }
  }

  stats() {
    return { sockets: this.conns.size, users: this.byUser.size };
  }

  private remove(conn: Conn) {
    if (!this.conns.delete(conn.socket)) return;
    const set = this.byUser.get(conn.userId);
    set?.delete(conn);
    if (set && !set.size) this.byUser.delete(conn.userId);
  }

  /** Closes and forgets at once, so the socket gets nothing more while its close handshake runs. */
  private drop(conn: Conn, code: number, reason: string) {
    this.remove(conn);
    conn.socket.close(code, reason);
  }

  private deliver(userId: string, event: WsEvent) {
    // A broadcast goes to the sockets open on this process — only connected users, nobody is queued for.
    const set = userId === EVERYONE ? this.conns.values() : this.byUser.get(userId);
    if (!set) return;
    const json = JSON.stringify(event);
    for (const conn of set) {
      const s = conn.socket;
      if (s.readyState !== WebSocket.OPEN) continue;
      if (s.bufferedAmount > MAX_BUFFERED_BYTES) {
        this.remove(conn);
        s.terminate();
        continue;
      }
      s.send(json);
    }
  }

  private startTimer() {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => this.sweep(), this.timings.sweepMs);
    this.timer.unref();
  }

  private sweep() {
    const now = performance.now();
    const cutoff = now - this.timings.idleCloseMs;
    for (const conn of this.conns.values()) {
      if (conn.lastSeen < cutoff) this.drop(conn, SOCKET_CLOSE_IDLE, 'idle');
    }
    if (!this.rechecking && now - this.lastRecheck >= this.timings.recheckMs) {
      this.lastRecheck = now;
      this.rechecking = this.recheck().finally(() => (this.rechecking = undefined));
    }
  }

  /** Closes with 4001 every socket (of `only`) whose session was revoked or expired since its handshake. */
  async recheck(only?: Conn[]): Promise<void> {
    const conns = only ?? [...this.conns.values()];
    if (!conns.length) return;
    const ids = [...new Set(conns.map((c) => c.sessionId))];
    let bad: Map<string, number>;
    try {
      bad = await this.checkSessions(ids);
    } catch (err) {
      // A database hiccup must not close everybody's socket; the next round tries again.
      this.log.warn({ err }, 'socket session re-check failed');
      return;
    }
    if (!bad.size) return;
    for (const conn of conns) {
      const code = bad.get(conn.sessionId);
      if (code !== undefined && this.conns.has(conn.socket)) this.drop(conn, SOCKET_CLOSE_BAD_TOKEN, String(code));
    }
  }

  /**
   * On app close: stop the timer and the subscription, give clients a moment to finish the close
   * handshake, then cut what is left so closing the HTTP server is never held up by a silent peer.
   */
  async close(graceMs = 1_000) {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe();
    for (const stop of this.unfollow.splice(0)) stop();
    const open = [...this.conns.keys()];
    for (const s of open) if (s.readyState === WebSocket.OPEN) s.close(1001, 'server closing');
    const closed = Promise.all(open.map((s) => (s.readyState === WebSocket.CLOSED ? null : new Promise((r) => s.once('close', r)))));
    let t: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((r) => (t = setTimeout(r, graceMs)))]);
    clearTimeout(t);
    for (const s of open) if (s.readyState !== WebSocket.CLOSED) s.terminate();
    this.conns.clear();
    this.byUser.clear();
  }
}
