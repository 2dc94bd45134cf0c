import {
  SOCKET_CLOSE_BAD_TOKEN,
  SOCKET_KEEPALIVE_MS,
  SOCKET_RECONNECT_MS,
  SOCKET_TOKEN_RECHECK_MS,
  WS_PATH,
  type WsEvent,
} from '@suanli/contracts';

/**
 * The live-updates connection (console-spec §4): reconnect 5 s after any close; while there is no token,
 * look again every 3 s; send an empty keep-alive every 10 s (the server drops sockets silent for 60 s).
 * A 4001 close means the server refused this token: the client stops using it and leaves the verdict to
 * the request pipeline's session check; a new token (a fresh login) brings the socket back.
 */

export interface SocketLike {
  readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export interface SocketClientOptions {
  getToken: () => string | undefined;
  onEvent: (event: WsEvent) => void;
  /** Called once per refused token (close code 4001). */
  onTokenRejected?: () => void;
  /** Called on every (re)connect: events sent while disconnected were missed. */
  onOpen?: () => void;
  /** The socket address for a token; defaults to this origin's gateway. */
  url?: (token: string) => string;
  createSocket?: (url: string) => SocketLike;
}

export interface SocketClient {
  start(): void;
  stop(): void;
  /** The token changed (login, logout): connect with the new one now instead of at the next check. */
  refresh(): void;
  readonly connected: boolean;
}

const OPEN = 1;

export function socketUrl(token: string): string {
  return `${window.location.origin.replace(/^http/, 'ws')}${WS_PATH}?token=${encodeURIComponent(token)}`;
}

export function createSocketClient(options: SocketClientOptions): SocketClient {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const urlFor = options.url ?? socketUrl;

  let running = false;
  let socket: SocketLike | null = null;
  let socketToken: string | undefined;
  /** The last token the server refused; never retried, so a dead session does not hammer the server. */
  let rejectedToken: string | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let keepAliveTimer: ReturnType<typeof setInterval> | undefined;

  function schedule(delay: number) {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, delay);
  }

  function stopKeepAlive() {
    clearInterval(keepAliveTimer);
    keepAliveTimer = undefined;
  }

  function connect() {
    retryTimer = undefined;
    if (!running) return;
    const token = options.getToken();
    if (!token || token === rejectedToken) {
      schedule(SOCKET_TOKEN_RECHECK_MS);
      return;
    }
    let ws: SocketLike;
    try {
      ws = createSocket(urlFor(token));
    } catch {
      schedule(SOCKET_RECONNECT_MS);
      return;
    }
    socket = ws;
    socketToken = token;

    ws.onopen = () => {
      options.onOpen?.();
      stopKeepAlive();
      keepAliveTimer = setInterval(() => {
        // The user signed out or in as someone else: this socket belongs to a session that is over.
        if (options.getToken() !== socketToken) {
          ws.close(1000, 'token changed');
          return;
        }
        if (ws.readyState === OPEN) ws.send('');
      }, SOCKET_KEEPALIVE_MS);
    };
    ws.onmessage = (event) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (parsed && typeof (parsed as WsEvent).businessType === 'string') options.onEvent(parsed as WsEvent);
    };
    ws.onerror = () => {
      // A close always follows an error; reconnecting is handled there.
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = null;
      stopKeepAlive();
      if (!running) return;
      if (event.code === SOCKET_CLOSE_BAD_TOKEN) {
        rejectedToken = socketToken;
        options.onTokenRejected?.();
        schedule(SOCKET_TOKEN_RECHECK_MS);
        return;
      }
      schedule(SOCKET_RECONNECT_MS);
    };
  }

  return {
    start() {
      if (running) return;
      running = true;
      connect();
    },
    stop() {
      running = false;
      clearTimeout(retryTimer);
      stopKeepAlive();
      const ws = socket;
      socket = null;
      ws?.close(1000, 'client stopped');
    },
    refresh() {
      if (!running) return;
      const token = options.getToken();
      if (socket && token === socketToken) return;
      const old = socket;
      // Detach first so the old socket's close does not schedule a reconnect of its own.
      socket = null;
      stopKeepAlive();
      old?.close(1000, 'token changed');
      clearTimeout(retryTimer);
      connect();
    },
    get connected() {
      return socket?.readyState === OPEN;
    },
  };
}
