import {
  ERROR_MESSAGES,
  SHELL_CLOSE_IDLE,
  SHELL_CLOSE_REFUSED,
  SHELL_TEXT,
  SHELL_WS_PATH,
  SOCKET_CLOSE_BAD_TOKEN,
  type ShellClientFrame,
  type ShellServerFrame,
} from '@suanli/contracts';
import { createSocketClient, socketAddress, type SocketClient, type SocketLike } from '../../shared/socket/socket-client';

/** What the connection needs of a WebSocket (tests pass a fake): the console's one socket interface. */
export type ShellSocketLike = SocketLike;

export type ConnectionPhase = 'connecting' | 'connected' | 'waiting' | 'ended';

export interface ShellConnectionOptions {
  centerId: string;
  cwd?: string;
  getToken: () => string | undefined;
  /** Terminal output bytes. */
  onOutput: (bytes: Uint8Array) => void;
  /** A Chinese status line to print (from the server or about the network). */
  onStatus: (text: string) => void;
  /** Phase changes: `waiting` = a reconnect is scheduled in `retryInMs`; `ended` = no automatic reconnect. */
  onPhase: (phase: ConnectionPhase, retryInMs?: number) => void;
  /** The server refused the session (4001): the console's session check takes over. */
  onTokenRejected?: () => void;
  createSocket?: (url: string) => ShellSocketLike;
  /** Backoff before the n-th automatic reconnect (defaults: 1, 2, 4, 8, 16, 30, 30… s). */
  backoffMs?: (attempt: number) => number;
  /** Give up automatic reconnects after this many in a row (the button still works). */
  maxAttempts?: number;
}

/** The server's frames are at most 64 KiB; a paste is sent in pieces well below that. */
const MAX_CHARS_PER_FRAME = 16 * 1024;
const KEEPALIVE_MS = 30_000;

export function shellUrl(q: { token: string; centerId: string; cwd?: string; cols: number; rows: number }): string {
  return socketAddress(SHELL_WS_PATH, { token: q.token, centerId: q.centerId, cols: String(q.cols), rows: String(q.rows), ...(q.cwd ? { cwd: q.cwd } : {}) });
}

/**
 * One terminal tab's socket (contracts/eshell.ts) on the console's one socket client (shared/socket): sends
 * keystrokes and sizes, hands output and status lines to the terminal, and reconnects after a network drop
 * with backoff. A reconnect opens a fresh shell (the old one was hung up with the socket). Closes the server meant — exit (1000), idle (4408), refusal
 * (4400), a dead session (4001) — are not reconnected automatically; `reconnect()` (the button) always is.
 */
export class ShellConnection {
  private readonly client: SocketClient;
  private attempt = 0;
  private size = { cols: 80, rows: 24 };
  private stopped = false;

  constructor(private readonly o: ShellConnectionOptions) {
    this.client = createSocketClient({
      getToken: o.getToken,
      // Read at each connection: a reconnect opens the new shell with the terminal's size of then.
      url: (token) => shellUrl({ token, centerId: o.centerId, cwd: o.cwd, ...this.size }),
      createSocket: o.createSocket,
      binaryType: 'arraybuffer',
      keepAlive: { everyMs: KEEPALIVE_MS, frame: JSON.stringify({ type: 'ping' } satisfies ShellClientFrame) },
      onConnecting: () => o.onPhase('connecting'),
      onMessage: (event) => this.received(event),
      onTokenRejected: () => {
        o.onStatus(SHELL_TEXT.revoked);
        o.onPhase('ended');
        o.onTokenRejected?.();
      },
      afterClose: (event) => this.closed(event),
      withoutToken: () => {
        o.onStatus('未登录，无法打开终端');
        o.onPhase('ended');
        return null;
      },
    });
  }

  /** Connects with the terminal's current size. */
  start(cols: number, rows: number) {
    this.size = { cols, rows };
    this.client.start();
  }

  /** Reconnect now (the 重新连接 button, or the browser coming back online). */
  reconnect() {
    if (this.stopped) return;
    this.attempt = 0;
    this.client.reconnect();
  }

  get connected() {
    return this.client.connected;
  }

  input(data: string) {
    for (let i = 0; i < data.length; i += MAX_CHARS_PER_FRAME) this.send({ type: 'data', data: data.slice(i, i + MAX_CHARS_PER_FRAME) });
  }

  resize(cols: number, rows: number) {
    if (cols === this.size.cols && rows === this.size.rows) return;
    this.size = { cols, rows };
    this.send({ type: 'resize', cols, rows });
  }

  /** The tab is closed: hang up, no more reconnects. */
  stop() {
    this.stopped = true;
    this.client.stop('tab closed');
  }

  private send(frame: ShellClientFrame) {
    this.client.send(JSON.stringify(frame));
  }

  private received(event: MessageEvent) {
    if (typeof event.data !== 'string') {
      this.o.onOutput(new Uint8Array(event.data as ArrayBuffer));
      return;
    }
    let f: ShellServerFrame;
    try {
      f = JSON.parse(event.data) as ShellServerFrame;
    } catch {
      return;
    }
    if (f.type !== 'status') return;
    if (f.state === 'connected') {
      this.attempt = 0;
      this.o.onPhase('connected');
    }
    this.o.onStatus(f.text);
  }

  /** What follows a close: nothing after one the server meant (4001 is told in onTokenRejected), else a backoff. */
  private closed(event: CloseEvent): number | null {
    if (event.code === SOCKET_CLOSE_BAD_TOKEN) return null;
    if (event.code === SHELL_CLOSE_REFUSED) {
      // The server printed why (its status line); a bare refusal still says something.
      if (!event.reason || !ERROR_MESSAGES[Number(event.reason)]) this.o.onStatus('无法打开终端');
      this.o.onPhase('ended');
      return null;
    }
    if (event.code === SHELL_CLOSE_IDLE || event.code === 1000) {
      this.o.onPhase('ended');
      return null;
    }
    return this.dropped();
  }

  /** The network (or the gateway) went away: say so and try again with backoff. */
  private dropped(): number | null {
    const max = this.o.maxAttempts ?? 10;
    if (this.attempt >= max) {
      this.o.onStatus(`${SHELL_TEXT.closed}，请点击“重新连接”`);
      this.o.onPhase('ended');
      return null;
    }
    const delay = (this.o.backoffMs ?? ((n: number) => Math.min(30_000, 1_000 * 2 ** n)))(this.attempt++);
    this.o.onStatus(`${SHELL_TEXT.closed}，${Math.ceil(delay / 1000)} 秒后自动重新连接…`);
    this.o.onPhase('waiting', delay);
    return delay;
  }
}
