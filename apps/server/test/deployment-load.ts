import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { WebSocket } from 'ws';
import { routeUrl, SOCKET_KEEPALIVE_MS, SOCKET_RECONNECT_MS, WS_PATH, WS_RESOURCE_SAMPLED, type Route, type RouteOutput, type RouteTypes } from '@suanli/contracts';
// The console's own transport: its timeout and the Chinese message of every failure are what is measured.
import { RequestError, send } from '../../console/src/shared/http/transport';

/**
 * Test-only pieces of the fault test (deployment-fault.slurm.int.test.ts): the processes of a deployment of
 * deploy/local-up.sh killed and started again, requests through nginx timed and recorded as the console
 * sends them, and the console's live socket with its reconnect.
 */

const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const now = () => performance.now();

/** SIGKILL to a deployment process's group (local-lib.sh starts each with setsid): node and its children. */
export function killGroup(work: string, name: string): void {
  process.kill(-Number(fs.readFileSync(path.join(work, 'run', `${name}.pid`), 'utf8')), 'SIGKILL');
}

/** deploy/local-start.sh WORK NAME: resolves with how long the process took to answer again. */
export function restart(work: string, name: string): Promise<number> {
  const t0 = now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(repoRoot, 'deploy/local-start.sh'), work, name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(now() - t0) : reject(new Error(`local-start.sh ${name} failed (${code}):\n${out}`))));
  });
}

export interface Call {
  op: string;
  ms: number;
  ok: boolean;
  kind?: string;
  status?: number;
  code?: number;
  message?: string;
}

/** Every request made through `call`/`record`, answered or failed, with its time. */
export class CallLog {
  readonly calls: Call[] = [];
  constructor(
    private readonly origin: string,
    private readonly boundMs: number,
  ) {}

  record<T>(op: string, t0: number, r: { ok: true; value: T } | { ok: false; error: unknown }): T | undefined {
    const ms = now() - t0;
    if (r.ok) {
      this.calls.push({ op, ms, ok: true });
      return r.value;
    }
    const e = r.error;
    if (e instanceof RequestError) this.calls.push({ op, ms, ok: false, kind: e.kind, status: e.status, code: e.code, message: e.message });
    else this.calls.push({ op, ms, ok: false, kind: 'thrown', message: String((e as Error)?.message ?? e) });
    return undefined;
  }

  /** One call of a route descriptor through the console's transport, bounded by `boundMs`. */
  async call<T extends RouteTypes>(
    op: string,
    route: Route<T>,
    opts: { base?: string; params?: Record<string, string>; query?: Record<string, string | number>; body?: unknown; token?: string } = {},
  ): Promise<RouteOutput<T> | undefined> {
    const t0 = now();
    try {
      const env = await send({
        method: route.method,
        url: (opts.base ?? this.origin) + routeUrl(route, opts.params),
        params: opts.query,
        data: opts.body,
        token: opts.token,
        anonymous: !opts.token,
        timeout: this.boundMs,
        silent: true,
      });
      return this.record(op, t0, { ok: true, value: (env as { data: RouteOutput<T> }).data });
    } catch (error) {
      return this.record<RouteOutput<T>>(op, t0, { ok: false, error });
    }
  }
}

/**
 * The console's live socket (apps/console/src/app/socket.ts): an empty keep-alive frame every SOCKET_KEEPALIVE_MS
 * (the server closes a socket silent for 60 s), and on a close it connects again after SOCKET_RECONNECT_MS,
 * for as long as it runs.
 */
export class LiveSocket {
  ws?: WebSocket;
  open = false;
  stopped = false;
  /** Every drop, with when the socket was open again. */
  drops: { closedAt: number; reopenedAt?: number }[] = [];
  /** Every connection attempt: how it ended (open, or the handshake's error) and how long it took. */
  attempts: { at: number; ms: number; outcome: string }[] = [];
  /** The user's own events (not the broadcast samples every socket gets). */
  events: { at: number; m: { businessType: string; data: { taskId?: string } } }[] = [];
  constructor(
    private readonly origin: string,
    private readonly token: () => string,
    /** A handshake not answered within this is given up (and counted): a hang is a failure to see. */
    private readonly handshakeMs: number,
  ) {
    this.connect();
  }
  private connect() {
    if (this.stopped) return;
    const ws = new WebSocket(`${this.origin.replace(/^http/, 'ws')}${WS_PATH}?token=${encodeURIComponent(this.token())}`, {
      headers: { origin: this.origin },
      handshakeTimeout: this.handshakeMs,
    });
    this.ws = ws;
    const attempt = { at: now(), ms: 0, outcome: 'pending' };
    this.attempts.push(attempt);
    let keepAlive: NodeJS.Timeout | undefined;
    ws.on('open', () => {
      keepAlive = setInterval(() => ws.send(''), SOCKET_KEEPALIVE_MS);
      attempt.ms = now() - attempt.at;
      attempt.outcome = 'open';
      this.open = true;
      const d = this.drops.at(-1);
      if (d && d.reopenedAt === undefined) d.reopenedAt = now();
    });
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as LiveSocket['events'][number]['m'];
      if (m.businessType !== WS_RESOURCE_SAMPLED) this.events.push({ at: now(), m });
    });
    // A refused or failed handshake ends in a close too (after its error).
    ws.on('error', (e) => {
      if (attempt.outcome === 'pending') Object.assign(attempt, { ms: now() - attempt.at, outcome: e.message });
    });
    ws.on('close', () => {
      clearInterval(keepAlive);
      if (this.open) this.drops.push({ closedAt: now() });
      this.open = false;
      if (!this.stopped) setTimeout(() => this.connect(), SOCKET_RECONNECT_MS);
    });
  }
  stop() {
    this.stopped = true;
    this.ws?.terminate();
  }
}
