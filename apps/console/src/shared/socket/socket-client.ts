/**
 * The console's one WebSocket client (issue 18 item 4): the live-updates socket (app/socket.ts) and each web
 * shell tab (features/eshell/shell-connection.ts) are this client with their own policy. It owns what both
 * need the same way — the socket interface, the address on this origin, connecting with the session token, a
 * keep-alive, messages only from the current socket, and a close code 4001 (the server refused the token:
 * that token is not tried again by itself, the owner hears of it once) — and asks its owner what differs:
 * how long to wait before the next attempt after a close (a fixed delay, a backoff, or none) and what to do
 * without a token.
 */
import { SOCKET_CLOSE_BAD_TOKEN } from '@suanli/contracts';

/** What the client needs of a WebSocket (tests pass a fake). */
export interface SocketLike {
  readyState: number;
  binaryType?: string;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export const SOCKET_OPEN = 1;
/** The close a failed `new WebSocket()` is treated as (the browser's code for a connection lost without a close frame). */
const ABNORMAL_CLOSE = 1006;

/** A socket address on this origin's gateway: `ws(s)://host/path?k=v…`, each value encoded. */
export function socketAddress(path: string, query: Record<string, string>): string {
  const q = Object.entries(query)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  return `${window.location.origin.replace(/^http/, 'ws')}${path}?${q}`;
}

export interface SocketClientOptions {
  getToken: () => string | undefined;
  /** The address for a token (built with `socketAddress`). */
  url: (token: string) => string;
  createSocket?: (url: string) => SocketLike;
  /** Binary frames as ArrayBuffers (the shell's output) instead of Blobs. */
  binaryType?: 'arraybuffer' | 'blob';
  /**
   * While open, `frame` is sent every `everyMs` (the server drops silent sockets). With `endsWithToken`, a
   * socket whose token is no longer the session's (sign-out, another account) is closed at that tick instead.
   */
  keepAlive?: { everyMs: number; frame: string; endsWithToken?: boolean };
  /** A new connection is being opened. */
  onConnecting?: () => void;
  onOpen?: () => void;
  /** A message of the current socket. */
  onMessage: (event: MessageEvent) => void;
  /** The server refused the token (4001): called once per refused token, before `afterClose`. */
  onTokenRejected?: (event: CloseEvent) => void;
  /**
   * The current socket closed without `stop`/`refresh`/`reconnect` (the server, the network, a refusal): ms
   * until the next attempt, or null for none (`reconnect()` still connects).
   */
  afterClose: (event: CloseEvent) => number | null;
  /** There is no usable token: ms until looking again, or null to stay closed. */
  withoutToken: () => number | null;
}

export interface SocketClient {
  /** Connects (once; a running client stays as it is). */
  start(): void;
  /** Closes for good with `reason`; no timer is left. */
  stop(reason?: string): void;
  /** The token may have changed (sign-in, sign-out): reconnect now unless the socket already has this token. */
  refresh(): void;
  /** Closes the current socket and connects again now, with a refused token tried once more (a button). */
  reconnect(): void;
  /** Sends when open; false when not. */
  send(data: string): boolean;
  readonly connected: boolean;
}

export function createSocketClient(o: SocketClientOptions): SocketClient {
  const createSocket = o.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  let running = false;
  let socket: SocketLike | null = null;
  let socketToken: string | undefined;
  /** The last token the server refused: not tried again by itself, so a dead session does not hammer the server. */
  let rejectedToken: string | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let keepAliveTimer: ReturnType<typeof setInterval> | undefined;

  function schedule(delay: number | null) {
    clearTimeout(retryTimer);
    retryTimer = delay === null ? undefined : setTimeout(connect, delay);
  }

  function stopKeepAlive() {
    clearInterval(keepAliveTimer);
    keepAliveTimer = undefined;
  }

  /** Forgets the current socket (its close then schedules nothing) and closes it. */
  function detach(reason: string) {
    const old = socket;
    socket = null;
    stopKeepAlive();
    old?.close(1000, reason);
  }

  function connect() {
    retryTimer = undefined;
    if (!running) return;
    const token = o.getToken();
    if (!token || token === rejectedToken) {
      schedule(o.withoutToken());
      return;
    }
    o.onConnecting?.();
    let ws: SocketLike;
    try {
      ws = createSocket(o.url(token));
    } catch {
      schedule(o.afterClose({ code: ABNORMAL_CLOSE, reason: '' } as CloseEvent));
      return;
    }
    if (o.binaryType) ws.binaryType = o.binaryType;
    socket = ws;
    socketToken = token;

    ws.onopen = () => {
      if (socket !== ws) return;
      stopKeepAlive();
      const k = o.keepAlive;
      if (k) {
        keepAliveTimer = setInterval(() => {
          // The user signed out or in as someone else: this socket belongs to a session that is over.
          if (k.endsWithToken && o.getToken() !== socketToken) {
            ws.close(1000, 'token changed');
            return;
          }
          if (ws.readyState === SOCKET_OPEN) ws.send(k.frame);
        }, k.everyMs);
      }
      o.onOpen?.();
    };
    ws.onmessage = (event) => {
      if (socket === ws) o.onMessage(event);
    };
    // A close always follows an error; what happens next is decided there.
    ws.onerror = () => undefined;
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = null;
      stopKeepAlive();
      if (!running) return;
      if (event.code === SOCKET_CLOSE_BAD_TOKEN) {
        rejectedToken = socketToken;
        o.onTokenRejected?.(event);
      }
      schedule(o.afterClose(event));
    };
  }

  return {
    start() {
      if (running) return;
      running = true;
      connect();
    },
    stop(reason = 'client stopped') {
      running = false;
      clearTimeout(retryTimer);
      detach(reason);
    },
    refresh() {
      if (!running) return;
      if (socket && o.getToken() === socketToken) return;
      detach('token changed');
      clearTimeout(retryTimer);
      connect();
    },
    reconnect() {
      if (!running) return;
      rejectedToken = undefined;
      clearTimeout(retryTimer);
      detach('reconnect');
      connect();
    },
    send(data) {
      if (socket?.readyState !== SOCKET_OPEN) return false;
      socket.send(data);
      return true;
    },
    get connected() {
      return socket?.readyState === SOCKET_OPEN;
    },
  };
}
