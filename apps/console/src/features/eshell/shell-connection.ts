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

/** What the connection needs of a WebSocket (tests pass a fake). */
export interface ShellSocketLike {
  readyState: number;
  binaryType: string;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

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

const OPEN = 1;
/** The server's frames are at most 64 KiB; a paste is sent in pieces well below that. */
const MAX_CHARS_PER_FRAME = 16 * 1024;
const KEEPALIVE_MS = 30_000;

export function shellUrl(q: { token: string; centerId: string; cwd?: string; cols: number; rows: number }): string {
  const params = new URLSearchParams({ token: q.token, centerId: q.centerId, cols: String(q.cols), rows: String(q.rows) });
  if (q.cwd) params.set('cwd', q.cwd);
  return `${window.location.origin.replace(/^http/, 'ws')}${SHELL_WS_PATH}?${params}`;
}

/**
 * One terminal tab's socket (contracts/eshell.ts): sends keystrokes and sizes, hands output and status
 * lines to the terminal, and reconnects after a network drop with backoff. A reconnect opens a fresh shell
 * (the old one was hung up with the socket). Closes the server meant — exit (1000), idle (4408), refusal
 * (4400), a dead session (4001) — are not reconnected automatically; `reconnect()` (the button) always is.
 */
export class ShellConnection {
  private socket: ShellSocketLike | null = null;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private size = { cols: 80, rows: 24 };
  private stopped = false;

  constructor(private readonly o: ShellConnectionOptions) {}

  /** Connects with the terminal's current size. */
  start(cols: number, rows: number) {
    this.size = { cols, rows };
    this.connect();
  }

  /** Reconnect now (the 重新连接 button, or the browser coming back online). */
  reconnect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    const old = this.socket;
    this.socket = null;
    old?.close(1000, 'reconnect');
    this.connect();
  }

  get connected() {
    return this.socket?.readyState === OPEN;
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
    clearTimeout(this.retryTimer);
    clearInterval(this.keepAlive);
    const s = this.socket;
    this.socket = null;
    s?.close(1000, 'tab closed');
  }

  private send(frame: ShellClientFrame) {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(frame));
  }

  private connect() {
    if (this.stopped) return;
    const token = this.o.getToken();
    if (!token) {
      this.o.onStatus('未登录，无法打开终端');
      this.o.onPhase('ended');
      return;
    }
    this.o.onPhase('connecting');
    const create = this.o.createSocket ?? ((url: string) => new WebSocket(url) as unknown as ShellSocketLike);
    let ws: ShellSocketLike;
    try {
      ws = create(shellUrl({ token, centerId: this.o.centerId, cwd: this.o.cwd, ...this.size }));
    } catch {
      this.dropped();
      return;
    }
    ws.binaryType = 'arraybuffer';
    this.socket = ws;
    ws.onopen = () => {
      clearInterval(this.keepAlive);
      this.keepAlive = setInterval(() => this.send({ type: 'ping' }), KEEPALIVE_MS);
    };
    ws.onmessage = (event) => {
      if (this.socket !== ws) return;
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
    };
    ws.onerror = () => undefined;
    ws.onclose = (event) => {
      if (this.socket !== ws) return;
      this.socket = null;
      clearInterval(this.keepAlive);
      if (this.stopped) return;
      if (event.code === SOCKET_CLOSE_BAD_TOKEN) {
        this.o.onStatus(SHELL_TEXT.revoked);
        this.o.onPhase('ended');
        this.o.onTokenRejected?.();
        return;
      }
      if (event.code === SHELL_CLOSE_REFUSED) {
        // The server printed why (its status line); a bare refusal still says something.
        if (!event.reason || !ERROR_MESSAGES[Number(event.reason)]) this.o.onStatus('无法打开终端');
        this.o.onPhase('ended');
        return;
      }
      if (event.code === SHELL_CLOSE_IDLE || event.code === 1000) {
        this.o.onPhase('ended');
        return;
      }
      this.dropped();
    };
  }

  /** The network (or the gateway) went away: say so and try again with backoff. */
  private dropped() {
    const max = this.o.maxAttempts ?? 10;
    if (this.attempt >= max) {
      this.o.onStatus(`${SHELL_TEXT.closed}，请点击“重新连接”`);
      this.o.onPhase('ended');
      return;
    }
    const delay = (this.o.backoffMs ?? ((n: number) => Math.min(30_000, 1_000 * 2 ** n)))(this.attempt++);
    this.o.onStatus(`${SHELL_TEXT.closed}，${Math.ceil(delay / 1000)} 秒后自动重新连接…`);
    this.o.onPhase('waiting', delay);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}
