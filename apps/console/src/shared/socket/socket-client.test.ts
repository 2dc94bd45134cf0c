import { SOCKET_CLOSE_BAD_TOKEN } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSocketClient, socketAddress, type SocketClientOptions, type SocketLike } from './socket-client';

/** A WebSocket double the test drives. */
class FakeSocket implements SocketLike {
  readyState = 0;
  binaryType = 'blob';
  sent: string[] = [];
  constructor(readonly url: string) {}
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  send(data: string) {
    this.sent.push(data);
  }
  close(code = 1000, reason = '') {
    this.serverClose(code, reason);
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  deliver(data: string) {
    this.onmessage?.(new MessageEvent('message', { data }));
  }
  serverClose(code: number, reason = '') {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}

let sockets: FakeSocket[];
let messages: string[];
let closes: number[];
let rejected: number;

function make(extra: Partial<SocketClientOptions> = {}) {
  return createSocketClient({
    getToken: () => 'tok',
    url: (t) => `ws://test/ws?token=${t}`,
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    onMessage: (e) => messages.push(String(e.data)),
    onTokenRejected: () => rejected++,
    afterClose: (e) => {
      closes.push(e.code);
      return 1_000;
    },
    withoutToken: () => 3_000,
    ...extra,
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  sockets = [];
  messages = [];
  closes = [];
  rejected = 0;
});
afterEach(() => vi.useRealTimers());

describe('the console socket client (shared by live updates and the web shell)', () => {
  it('builds addresses on this origin with every value encoded', () => {
    expect(socketAddress('/ws', { token: 'a b', cwd: '/数据' })).toBe(`${window.location.origin.replace(/^http/, 'ws')}/ws?token=a%20b&cwd=${encodeURIComponent('/数据')}`);
  });

  it('hands over messages of the current socket only, and sets the binary type asked for', () => {
    const c = make({ binaryType: 'arraybuffer' });
    c.start();
    expect(sockets[0].binaryType).toBe('arraybuffer');
    sockets[0].open();
    sockets[0].deliver('one');
    // A reconnect replaces the socket; a late message of the old one is not the new connection's.
    c.reconnect();
    sockets[0].deliver('stale');
    sockets[1].open();
    sockets[1].deliver('two');
    expect(messages).toEqual(['one', 'two']);
    // The old socket was closed by the client, which asks the owner nothing about it.
    expect(closes).toEqual([]);
    c.stop();
  });

  it('asks the owner after a close, and treats a socket that cannot be made as a lost connection (1006)', () => {
    let fail = true;
    const c = make({
      createSocket: (url) => {
        if (fail) throw new Error('blocked');
        const s = new FakeSocket(url);
        sockets.push(s);
        return s;
      },
    });
    c.start();
    expect(closes).toEqual([1006]);
    fail = false;
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(1);
    sockets[0].serverClose(4408);
    expect(closes).toEqual([1006, 4408]);
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(2);
    c.stop();
  });

  it('does not retry a refused token (4001) by itself, not even on refresh; reconnect() tries it once more', () => {
    const c = make();
    c.start();
    sockets[0].serverClose(SOCKET_CLOSE_BAD_TOKEN, '10307');
    expect(rejected).toBe(1);
    vi.advanceTimersByTime(10_000);
    c.refresh();
    expect(sockets).toHaveLength(1);
    c.reconnect();
    expect(sockets).toHaveLength(2);
    c.stop();
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2);
  });

  it('sends only while open', () => {
    const c = make({ keepAlive: { everyMs: 5_000, frame: 'ping' } });
    c.start();
    expect(c.send('early')).toBe(false);
    sockets[0].open();
    expect(c.send('x')).toBe(true);
    vi.advanceTimersByTime(5_000);
    expect(sockets[0].sent).toEqual(['x', 'ping']);
    expect(c.connected).toBe(true);
    c.stop();
    expect(c.connected).toBe(false);
  });
});
