import { WebSocket } from 'ws';
import { WS_PATH, WS_RESOURCE_SAMPLED } from '@suanli/contracts';

/** Test-only: a live-updates client over real HTTP that records what it receives and how it ends. */
export interface TestSocket {
  ws: WebSocket;
  /** The events addressed to the socket's user. */
  messages: unknown[];
  /**
   * The broadcasts every socket gets (`resource.sampled`, whenever a poller samples a center — at start-up
   * and on its interval), kept apart so a test about the user's own events never trips over them.
   */
  broadcasts: unknown[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first message (already received or future) matching `pred`; rejects after timeoutMs. */
  next(pred?: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  /** The same over `broadcasts`. */
  nextBroadcast(pred?: (m: any) => boolean, timeoutMs?: number): Promise<any>;
}

const BROADCASTS: readonly string[] = [WS_RESOURCE_SAMPLED];

export type OpenResult = { kind: 'open'; socket: TestSocket } | { kind: 'refused'; status: number };

export function wsUrl(port: number, token?: string) {
  return `ws://127.0.0.1:${port}${WS_PATH}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
}

/**
 * Opens a socket; resolves once the handshake is answered (101 → open, anything else → refused). Sends the
 * gateway's own origin as Origin, as the console in a browser does, unless `headers` names one; `origin:
 * ''` sends none.
 */
export function openSocket(url: string, headers: Record<string, string> = {}): Promise<OpenResult> {
  return new Promise((resolve, reject) => {
    const { origin = new URL(url.replace(/^ws/, 'http')).origin, ...rest } = headers;
    const ws = new WebSocket(url, { headers: origin ? { ...rest, origin } : rest });
    const messages: unknown[] = [];
    const broadcasts: unknown[] = [];
    type Waiter = { list: unknown[]; pred: (m: unknown) => boolean; resolve: (m: unknown) => void };
    const waiters = new Set<Waiter>();
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      const list = BROADCASTS.includes(m?.businessType) ? broadcasts : messages;
      list.push(m);
      for (const w of waiters) {
        if (w.list !== list || !w.pred(m)) continue;
        waiters.delete(w);
        w.resolve(m);
      }
    });
    const next =
      (list: unknown[]) =>
      (pred: (m: any) => boolean = () => true, timeoutMs = 3_000): Promise<any> => {
        const seen = list.find(pred);
        if (seen) return Promise.resolve(seen);
        return new Promise((res, rej) => {
          const w: Waiter = { list, pred, resolve: (m: unknown) => (clearTimeout(timer), res(m)) };
          const timer = setTimeout(() => (waiters.delete(w), rej(new Error('no matching socket message'))), timeoutMs);
          waiters.add(w);
        });
      };
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('unexpected-response', (_req, res) => {
      resolve({ kind: 'refused', status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        kind: 'open',
        socket: {
          ws,
          messages,
          broadcasts,
          closed,
          next: next(messages),
          nextBroadcast: next(broadcasts),
        },
      }),
    );
  });
}

/** Opens a socket the test expects to be accepted. */
export async function connect(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const r = await openSocket(url, headers);
  if (r.kind !== 'open') throw new Error(`socket refused with HTTP ${r.status}`);
  return r.socket;
}

/** Resolves with the close, or with null when the socket is still open after `ms`. */
export function closedWithin(s: TestSocket, ms: number) {
  return Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), ms))]);
}
