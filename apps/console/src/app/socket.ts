import {
  SOCKET_CLOSE_BAD_TOKEN,
  SOCKET_KEEPALIVE_MS,
  SOCKET_RECONNECT_MS,
  SOCKET_TOKEN_RECHECK_MS,
  WS_PATH,
  type WsEvent,
} from '@suanli/contracts';
import { createSocketClient as createClient, socketAddress, type SocketClient as Client, type SocketLike } from '../shared/socket/socket-client';

export type { SocketLike };

/**
 * The live-updates connection (console-spec §4) on the console's one socket client (shared/socket): reconnect
 * 5 s after any close; while there is no token, look again every 3 s; send an empty keep-alive every 10 s (the
 * server drops sockets silent for 60 s). A 4001 close means the server refused this token: the client stops
 * using it and leaves the verdict to the request pipeline's session check; a new token (a fresh login) brings
 * the socket back.
 */
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

export type SocketClient = Pick<Client, 'start' | 'stop' | 'refresh' | 'connected'>;

export function socketUrl(token: string): string {
  return socketAddress(WS_PATH, { token });
}

export function createSocketClient(options: SocketClientOptions): SocketClient {
  return createClient({
    getToken: options.getToken,
    url: options.url ?? socketUrl,
    createSocket: options.createSocket,
    keepAlive: { everyMs: SOCKET_KEEPALIVE_MS, frame: '', endsWithToken: true },
    onOpen: options.onOpen,
    onMessage: (event) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (parsed && typeof (parsed as WsEvent).businessType === 'string') options.onEvent(parsed as WsEvent);
    },
    onTokenRejected: () => options.onTokenRejected?.(),
    // After a refusal the token is skipped (the client looks for a new one); any other close is retried.
    afterClose: (event) => (event.code === SOCKET_CLOSE_BAD_TOKEN ? SOCKET_TOKEN_RECHECK_MS : SOCKET_RECONNECT_MS),
    withoutToken: () => SOCKET_TOKEN_RECHECK_MS,
  });
}
