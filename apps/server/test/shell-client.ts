import { WebSocket } from 'ws';
import { SHELL_WS_PATH, type ShellClientFrame, type ShellServerFrame } from '@suanli/contracts';

/** Test-only: a web shell client over real HTTP that keeps the terminal output and the status lines. */
export interface ShellClient {
  ws: WebSocket;
  /** Everything the terminal printed so far (UTF-8). */
  output(): string;
  statuses: ShellServerFrame[];
  closed: Promise<{ code: number; reason: string }>;
  send(frame: ShellClientFrame): void;
  /** Types a line (with Enter). */
  type(line: string): void;
  /** Resolves once the output (from `from`, default: the start) matches; rejects after timeoutMs. */
  waitOutput(re: RegExp, timeoutMs?: number, from?: number): Promise<RegExpMatchArray>;
  waitStatus(pred: (f: ShellServerFrame) => boolean, timeoutMs?: number): Promise<ShellServerFrame>;
}

export function shellUrl(port: number, q: Record<string, string | number | undefined>) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
  return `ws://127.0.0.1:${port}${SHELL_WS_PATH}?${params}`;
}

/** Polls `check` until it answers something truthy (no timed assertions: generous limits on a shared machine). */
async function until<T>(check: () => T | undefined | null | false, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Opens a shell socket; resolves once the handshake is answered (101), rejects on any other answer. */
export function openShell(url: string, origin = new URL(url.replace(/^ws/, 'http')).origin): Promise<ShellClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: origin ? { origin } : {} });
    let out = Buffer.alloc(0);
    const statuses: ShellServerFrame[] = [];
    ws.on('message', (raw: Buffer, isBinary) => {
      if (isBinary) out = Buffer.concat([out, raw]);
      else statuses.push(JSON.parse(raw.toString()) as ShellServerFrame);
    });
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode }));
      ws.terminate();
    });
    ws.on('error', reject);
    ws.on('open', () => {
      const c: ShellClient = {
        ws,
        output: () => out.toString('utf8'),
        statuses,
        closed,
        send: (f) => ws.send(JSON.stringify(f)),
        type: (line) => c.send({ type: 'data', data: `${line}\r` }),
        waitOutput: (re, timeoutMs = 15_000, from = 0) => until(() => c.output().slice(from).match(re), timeoutMs, `output ${re}`),
        waitStatus: (pred, timeoutMs = 15_000) => until(() => statuses.find(pred), timeoutMs, 'a status line'),
      };
      resolve(c);
    });
  });
}
