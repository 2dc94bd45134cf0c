import { SHELL_CLOSE_IDLE, SHELL_CLOSE_REFUSED, SHELL_TEXT, SHELL_WS_PATH, SOCKET_CLOSE_BAD_TOKEN } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ShellConnection, type ConnectionPhase, type ShellSocketLike } from './shell-connection';

/** A WebSocket double the test drives. */
class FakeSocket implements ShellSocketLike {
  readyState = 0;
  binaryType = 'blob';
  sent: unknown[] = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000, reason = '') {
    this.serverClose(code, reason);
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  status(state: string, text: string) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ type: 'status', state, text }) }));
  }
  output(s: string) {
    this.onmessage?.(new MessageEvent('message', { data: new TextEncoder().encode(s).buffer }));
  }
  serverClose(code: number, reason = '') {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}

let sockets: FakeSocket[];
let out: string;
let statuses: string[];
let phases: ConnectionPhase[];

function make(cwd?: string) {
  return new ShellConnection({
    centerId: 'sz',
    cwd,
    getToken: () => 'tok',
    onOutput: (b) => (out += new TextDecoder().decode(b)),
    onStatus: (t) => statuses.push(t),
    onPhase: (p) => phases.push(p),
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  sockets = [];
  out = '';
  statuses = [];
  phases = [];
});
afterEach(() => vi.useRealTimers());

describe('ShellConnection', () => {
  it('opens the shell socket with the size and folder, relays output, input (in pieces), resize and status lines', () => {
    const c = make('/docs');
    c.start(100, 30);
    const url = new URL(sockets[0].url);
    expect(url.pathname).toBe(SHELL_WS_PATH);
    expect(Object.fromEntries(url.searchParams)).toEqual({ token: 'tok', centerId: 'sz', cols: '100', rows: '30', cwd: '/docs' });
    expect(sockets[0].binaryType).toBe('arraybuffer');
    sockets[0].open();
    sockets[0].status('connected', '已连接到 深圳 本地终端（账号 szu0001）');
    expect(phases).toEqual(['connecting', 'connected']);
    expect(statuses).toEqual(['已连接到 深圳 本地终端（账号 szu0001）']);
    sockets[0].output('hello 你好');
    expect(out).toBe('hello 你好');
    c.input('ls\r');
    c.resize(120, 40);
    c.resize(120, 40);
    c.input('x'.repeat(40_000));
    expect(sockets[0].sent.slice(0, 2)).toEqual([
      { type: 'data', data: 'ls\r' },
      { type: 'resize', cols: 120, rows: 40 },
    ]);
    expect(sockets[0].sent.slice(2).map((f) => (f as { data: string }).data.length)).toEqual([16384, 16384, 7232]);
  });

  it('reconnects after a network drop with growing delays, with the new size', () => {
    const c = make();
    c.start(80, 24);
    sockets[0].open();
    c.resize(90, 20);
    sockets[0].serverClose(1006);
    expect(statuses.at(-1)).toBe(`${SHELL_TEXT.closed}，1 秒后自动重新连接…`);
    expect(phases.at(-1)).toBe('waiting');
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(2);
    expect(new URL(sockets[1].url).searchParams.get('cols')).toBe('90');
    sockets[1].serverClose(1006);
    expect(statuses.at(-1)).toBe(`${SHELL_TEXT.closed}，2 秒后自动重新连接…`);
    vi.advanceTimersByTime(1_999);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(3);
    // Connected again: the backoff starts over.
    sockets[2].open();
    sockets[2].status('connected', 'ok');
    sockets[2].serverClose(1006);
    expect(statuses.at(-1)).toContain('1 秒后');
  });

  it('does not reconnect by itself after exit, idle timeout, refusal or a dead session; the button does', () => {
    for (const [code, reason] of [
      [1000, 'exited'],
      [SHELL_CLOSE_IDLE, 'idle'],
      [SHELL_CLOSE_REFUSED, '1308'],
      [SOCKET_CLOSE_BAD_TOKEN, '10307'],
    ] as const) {
      sockets = [];
      const c = make();
      c.start(80, 24);
      sockets[0].open();
      sockets[0].serverClose(code, reason);
      expect(phases.at(-1)).toBe('ended');
      vi.advanceTimersByTime(60_000);
      expect(sockets).toHaveLength(1);
      c.reconnect();
      expect(sockets).toHaveLength(2);
      c.stop();
    }
    expect(statuses).toContain(SHELL_TEXT.revoked);
  });

  it('stops for good when the tab closes', () => {
    const c = make();
    c.start(80, 24);
    sockets[0].open();
    c.stop();
    expect(sockets[0].readyState).toBe(3);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });
});
