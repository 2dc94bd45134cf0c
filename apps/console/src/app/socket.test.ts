import {
  SOCKET_CLOSE_BAD_TOKEN,
  SOCKET_KEEPALIVE_MS,
  SOCKET_RECONNECT_MS,
  SOCKET_TOKEN_RECHECK_MS,
  WS_PATH,
  type WsEvent,
} from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSocketClient, socketUrl, type SocketLike } from './socket';

/** A WebSocket double the test drives: open, deliver, close. */
class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  closedWith: number | undefined;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data);
  }
  close(code = 1000) {
    this.closedWith = code;
    this.serverClose(code);
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  deliver(payload: unknown) {
    this.onmessage?.(new MessageEvent('message', { data: typeof payload === 'string' ? payload : JSON.stringify(payload) }));
  }
  serverClose(code: number) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code } as CloseEvent);
  }
}

let token: string | undefined;
let sockets: FakeSocket[];
let events: WsEvent[];
let rejected: number;

function makeClient() {
  return createSocketClient({
    getToken: () => token,
    onEvent: (e) => events.push(e),
    onTokenRejected: () => rejected++,
    url: (t) => `ws://test${WS_PATH}?token=${t}`,
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  token = 'tok-1';
  sockets = [];
  events = [];
  rejected = 0;
});
afterEach(() => vi.useRealTimers());

describe('socket client', () => {
  it('builds the address from this origin with the token in the query', () => {
    expect(socketUrl('a b')).toBe(`${window.location.origin.replace(/^http/, 'ws')}${WS_PATH}?token=a%20b`);
  });

  it('connects with the token and hands parsed events over', () => {
    const client = makeClient();
    client.start();
    expect(sockets).toHaveLength(1);
    expect(sockets[0].url).toBe(`ws://test${WS_PATH}?token=tok-1`);
    sockets[0].open();
    sockets[0].deliver({ businessType: 'notice.unread.increment', data: { count: 2 } });
    sockets[0].deliver('not json');
    expect(events).toEqual([{ businessType: 'notice.unread.increment', data: { count: 2 } }]);
    client.stop();
  });

  it(`sends an empty keep-alive every ${SOCKET_KEEPALIVE_MS / 1000} s while open`, () => {
    const client = makeClient();
    client.start();
    sockets[0].open();
    vi.advanceTimersByTime(SOCKET_KEEPALIVE_MS - 1);
    expect(sockets[0].sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sockets[0].sent).toEqual(['']);
    vi.advanceTimersByTime(SOCKET_KEEPALIVE_MS * 2);
    expect(sockets[0].sent).toEqual(['', '', '']);
    client.stop();
  });

  it(`reconnects ${SOCKET_RECONNECT_MS / 1000} s after the connection closes`, () => {
    const client = makeClient();
    client.start();
    sockets[0].open();
    sockets[0].serverClose(1006);
    vi.advanceTimersByTime(SOCKET_RECONNECT_MS - 1);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(2);
    // The old socket's keep-alive stopped with it.
    vi.advanceTimersByTime(SOCKET_KEEPALIVE_MS);
    expect(sockets[0].sent).toEqual([]);
    client.stop();
  });

  it(`re-checks for a token every ${SOCKET_TOKEN_RECHECK_MS / 1000} s while there is none`, () => {
    token = undefined;
    const client = makeClient();
    client.start();
    expect(sockets).toHaveLength(0);
    vi.advanceTimersByTime(SOCKET_TOKEN_RECHECK_MS * 3);
    expect(sockets).toHaveLength(0);
    token = 'tok-new';
    vi.advanceTimersByTime(SOCKET_TOKEN_RECHECK_MS - 1);
    expect(sockets).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(1);
    expect(sockets[0].url).toContain('token=tok-new');
    client.stop();
  });

  it('on 4001 stops using the refused token, reports it once, and comes back with a new token', () => {
    const client = makeClient();
    client.start();
    sockets[0].serverClose(SOCKET_CLOSE_BAD_TOKEN);
    expect(rejected).toBe(1);
    vi.advanceTimersByTime(SOCKET_RECONNECT_MS * 4);
    expect(sockets).toHaveLength(1);
    expect(rejected).toBe(1);

    token = 'tok-2';
    vi.advanceTimersByTime(SOCKET_TOKEN_RECHECK_MS);
    expect(sockets).toHaveLength(2);
    expect(sockets[1].url).toContain('token=tok-2');
    client.stop();
  });

  it('closes a socket whose session ended (logout) and waits for the next token', () => {
    const client = makeClient();
    client.start();
    sockets[0].open();
    token = undefined;
    vi.advanceTimersByTime(SOCKET_KEEPALIVE_MS);
    expect(sockets[0].closedWith).toBe(1000);
    expect(sockets[0].sent).toEqual([]);
    vi.advanceTimersByTime(SOCKET_RECONNECT_MS + SOCKET_TOKEN_RECHECK_MS * 2);
    expect(sockets).toHaveLength(1);
    client.stop();
  });

  it('stop() closes the socket and cancels every timer', () => {
    const client = makeClient();
    client.start();
    sockets[0].open();
    client.stop();
    expect(sockets[0].closedWith).toBe(1000);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(sockets[0].sent).toEqual([]);
  });
});

describe('socket client refresh and reconnect hooks', () => {
  it('connects at once when a token appears and reports every open', () => {
    token = undefined;
    let opens = 0;
    const client = createSocketClient({
      getToken: () => token,
      onEvent: () => {},
      onOpen: () => opens++,
      url: (t) => `ws://test?token=${t}`,
      createSocket: (url) => {
        const s = new FakeSocket(url);
        sockets.push(s);
        return s;
      },
    });
    client.start();
    token = 'tok-login';
    client.refresh();
    expect(sockets).toHaveLength(1);
    sockets[0].open();
    expect(opens).toBe(1);

    // A new account replaces the socket immediately, without a second socket from the old one's close.
    token = 'tok-other';
    client.refresh();
    expect(sockets).toHaveLength(2);
    expect(sockets[0].closedWith).toBe(1000);
    vi.advanceTimersByTime(SOCKET_RECONNECT_MS);
    expect(sockets).toHaveLength(2);
    sockets[1].open();
    expect(opens).toBe(2);

    // Same token: nothing to do.
    client.refresh();
    expect(sockets).toHaveLength(2);
    client.stop();
  });
});
