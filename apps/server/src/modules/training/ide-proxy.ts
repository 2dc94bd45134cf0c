import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors';
import { CONSOLE_BASE_PATH } from '@suanli/contracts';
import type { AccessLogService } from '../access-log/access-log.service';
import type { Principal } from '../access/principal';
import type { TaskQueries } from '../task/task-queries';
import type { IdeOrigin } from './ide-origin';
import type { IdeTicketRepository } from './ide-ticket.repository';

/** A ticket is good for one exchange, within this long. */
const TICKET_MS = 60_000;
/** The cookie that follows lives as long as a session may (the session itself is re-checked every request). */
const COOKIE_MS = 12 * 3600_000;
const COOKIE = 'suanli_ide';
/** On the IDE's origin, the one path that is the platform's and not the IDE's: the ticket exchange. */
export const IDE_OPEN_PATH = '/__suanli/open';
/**
 * Requests for an IDE host are routed here (app.ts rewrites their URL to `<prefix>/<task><path>` before
 * routing); the handler checks the Host again, so the prefix reached from any other host is a 404.
 */
export const IDE_ROUTE_PREFIX = '/__ide';

interface Grant {
  /** task id */
  t: string;
  /** user id */
  u: string;
  /** session id (its revocation ends the grant) */
  s: string;
  /** expiry, epoch ms */
  e: number;
  /** the access record of this proxy session */
  r: string;
}

/** What the proxy reads of the task module: where a running develop task's IDE listens (owner only), a task's state. */
export type IdeTasks = Pick<TaskQueries, 'ideEndpoint' | 'stateOf'>;

/** Is this session still valid (not revoked, not expired)? */
export type SessionCheck = (sessionId: string) => Promise<boolean>;

/**
 * The authenticated reverse proxy in front of develop tasks' IDEs, each on an origin of its own
 * (`IdeOrigin`, ADR 0014) — never the console's, so nothing an IDE page runs can read the console's session.
 * Owner only, the task RUNNING, the user's session valid at every request. 打开 gets a one-minute ticket
 * (`ticketFor`, stored hashed, single-use); its exchange on the IDE's origin sets an HttpOnly cookie for that
 * host alone and redirects to the IDE. Requests stream both ways (no buffering) to the node the scheduler
 * allocated, on the port the job reported; the IDE's own token (written by the job, never shown to the
 * browser) is added here, and our cookie is taken out of what the IDE sees. Writes and sockets must come
 * from the IDE's own origin (another task's IDE is the same site, so SameSite alone would not stop it).
 * Cookies are HMAC-signed with a secret under the data dir, so every gateway sharing it accepts them.
 */
export class IdeProxy {
  private readonly secret: Buffer;
  private lastSweep = 0;

  constructor(
    private readonly tasks: IdeTasks,
    private readonly access: AccessLogService,
    private readonly sessionValid: SessionCheck,
    private readonly tickets: IdeTicketRepository,
    private readonly origin: IdeOrigin,
    private readonly consoleUrl: () => string,
    dataDir: string,
    private readonly clock: () => number,
  ) {
    const file = path.join(dataDir, 'keys', 'ide-proxy.secret');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    this.secret = fs.readFileSync(file);
  }

  /** The first-hop URL for the owner of a running develop task (2011 before its IDE can be reached). */
  async ticketFor(p: Principal, taskId: string): Promise<{ url: string }> {
    await this.tasks.ideEndpoint(p.userId, taskId);
    const ticket = randomBytes(32).toString('base64url');
    const now = this.clock();
    await this.tickets.add({ hash: sha256(ticket), task_id: taskId, user_id: p.userId, session_id: p.sessionId, expire_time: now + TICKET_MS }, now);
    return { url: `${this.origin.of(taskId)}${IDE_OPEN_PATH}?ticket=${ticket}` };
  }

  /** Ends the access records of proxy sessions whose task is no longer running (called after polls). */
  async sweep(): Promise<void> {
    const now = this.clock();
    if (now - this.lastSweep < 5_000) return;
    this.lastSweep = now;
    for (const r of await this.access.openOfKind('proxy')) {
      if ((await this.tasks.stateOf(r.target)) !== 'RUNNING') await this.access.close(r.id, 'stopped');
    }
  }

  /** Fastify plugin registered at IDE_ROUTE_PREFIX (public routes: the ticket or cookie is the credential). */
  routes(): FastifyPluginAsync {
    return async (app) => {
      const handler = (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => this.handle(req, reply);
      for (const url of ['/:id', '/:id/*']) {
        app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], url, config: { public: true, bulk: true }, handler });
      }
      // Bodies go to the IDE as they are: no parsing here.
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', (_req, _payload, done) => done(null));
    };
  }

  private async handle(req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const taskId = req.params.id;
    // Only reached through the IDE's own host (app.ts rewrites those); the prefix typed on any other is not a page.
    if (this.origin.taskOf(req.headers.host) !== taskId) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    // What the browser asked for, before the rewrite: the IDE's own path.
    const url = new URL(req.originalUrl, 'http://ide');
    if (url.pathname === IDE_OPEN_PATH) return this.open(req, reply, taskId, url.searchParams.get('ticket'));

    let g = this.verify(readCookie(req.headers.cookie, COOKIE), taskId);
    if (g && !(await this.sessionValid(g.s))) {
      await this.access.close(g.r, 'revoked');
      g = null;
    }
    if (!g) return this.refuse(reply, 403, '无权访问该开发环境：请登录后从任务详情页点击“打开”。', null);
    const websocket = String(req.headers.upgrade).toLowerCase() === 'websocket';
    if ((websocket || !SAFE_METHODS.has(req.method)) && !this.sameOrigin(req, taskId)) {
      return this.refuse(reply, 403, '请求来源不是该开发环境本身，已拒绝。', taskId);
    }
    let target;
    try {
      target = await this.tasks.ideEndpoint(g.u, taskId);
    } catch (e) {
      await this.access.close(g.r, 'stopped');
      const msg = e instanceof AppError ? e.message : '开发环境暂时无法访问';
      return this.refuse(reply, e instanceof AppError && e.code === 1205 ? 404 : 503, msg, taskId);
    }
    reply.hijack();
    // The browser's Host stays (the IDE compares it with the Origin of its sockets); the token is the IDE's.
    const headers: http.OutgoingHttpHeaders = { ...req.headers, authorization: `token ${target.token}` };
    const rest = stripCookie(req.headers.cookie, COOKIE);
    if (rest) headers.cookie = rest;
    else delete headers.cookie;
    const idePath = url.pathname + url.search;
    if (websocket) return this.tunnel(req, target, idePath, headers);
    const upstream = http.request({ host: target.host, port: target.port, method: req.method, path: idePath, headers }, (res) => {
      reply.raw.writeHead(res.statusCode ?? 502, res.headers);
      res.pipe(reply.raw);
    });
    upstream.on('error', () => {
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(502, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        reply.raw.end(proxyPage('开发环境正在启动或暂时无法连接，请稍后刷新本页（每 5 秒自动刷新）。', this.backLink(taskId), true));
      } else reply.raw.destroy();
    });
    req.raw.pipe(upstream);
  }

  /**
   * The ticket's exchange on the IDE's origin: taken out of the store (so it works once), checked against
   * this task and a live session, then an HttpOnly cookie for this host alone and a redirect into the IDE.
   * SameSite=Lax: the redirect that follows is still the console's navigation, which Strict would not follow
   * with the cookie; unsafe requests and sockets are held to the IDE's own origin besides.
   */
  private async open(req: FastifyRequest, reply: FastifyReply, taskId: string, ticket: string | null) {
    const now = this.clock();
    const t = ticket ? await this.tickets.take(sha256(ticket), now) : undefined;
    if (!t || t.task_id !== taskId || !(await this.sessionValid(t.session_id))) {
      return this.refuse(reply, 403, '访问链接已失效（每个链接只能使用一次，一分钟内有效），请回到任务详情页重新点击“打开”。', taskId);
    }
    let where;
    try {
      where = await this.tasks.ideEndpoint(t.user_id, taskId);
    } catch (e) {
      return this.refuse(reply, 503, e instanceof AppError ? e.message : '开发环境暂时无法访问', taskId);
    }
    // One access record per opening (who, center, account, task, address); it ends with the task or the session.
    const r = await this.access.open({ kind: 'proxy', userId: t.user_id, centerId: where.subCenterId, account: where.account, target: taskId, clientIp: req.ip });
    const cookie = this.sign({ t: taskId, u: t.user_id, s: t.session_id, e: now + COOKIE_MS, r });
    return reply
      .header('set-cookie', `${COOKIE}=${cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${COOKIE_MS / 1000}${this.origin.secure ? '; Secure' : ''}`)
      .header('cache-control', 'no-store')
      .redirect('/', 303);
  }

  /** A write or socket from this IDE's own pages: its Origin (browsers send one on both) is the IDE's. */
  private sameOrigin(req: FastifyRequest, taskId: string): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return req.headers['sec-fetch-site'] === undefined || req.headers['sec-fetch-site'] === 'same-origin';
    return origin === this.origin.of(taskId);
  }

  /**
   * A WebSocket (Jupyter's kernel channels): the upgrade goes to the IDE with its token, its 101 comes back on
   * the browser's socket, then bytes flow both ways untouched. `req.raw.socket` is the browser's connection
   * (the server's upgrade listener routed it here).
   */
  private tunnel(req: FastifyRequest, target: { host: string; port: number }, idePath: string, headers: http.OutgoingHttpHeaders) {
    const client = req.raw.socket;
    const upstream = http.request({ host: target.host, port: target.port, method: 'GET', path: idePath, headers });
    upstream.on('upgrade', (res, socket, head) => {
      const lines = [`HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) client.write(head);
      socket.pipe(client).pipe(socket);
      const end = () => {
        socket.destroy();
        client.destroy();
      };
      socket.on('error', end).on('close', end);
      client.on('error', end).on('close', end);
    });
    upstream.on('response', (res) => {
      // The IDE refused the upgrade: pass its answer on and close.
      client.end(`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      res.resume();
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'));
    upstream.end();
  }

  /** The way back from a proxy page: the task's detail page on the console (another origin). */
  private backLink(taskId: string | null) {
    const base = `${this.consoleUrl()}${CONSOLE_BASE_PATH}`;
    return taskId ? { href: `${base}/training/detail/develop/${encodeURIComponent(taskId)}`, label: '返回任务详情' } : { href: `${base}/`, label: '返回控制台' };
  }

  private refuse(reply: FastifyReply, status: number, text: string, taskId: string | null) {
    return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(proxyPage(text, this.backLink(taskId)));
  }

  private sign(g: Grant): string {
    const body = Buffer.from(JSON.stringify(g)).toString('base64url');
    return `${body}.${createHmac('sha256', this.secret).update(body).digest('base64url')}`;
  }

  private verify(value: string | undefined | null, taskId: string): Grant | null {
    if (!value) return null;
    const parts = value.split('.');
    if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
    const [body, sig] = parts;
    // Compared as the canonical base64url text, not as decoded bytes: a decoder ignores the unused low bits
    // of the last character, so a signature with its last character changed ('A' → 'B') decoded to the same
    // bytes and was accepted (a CI run's forged-cookie check got 200 once in ~30).
    const want = Buffer.from(createHmac('sha256', this.secret).update(body).digest('base64url'));
    const got = Buffer.from(sig);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
    try {
      const g = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Grant;
      return g.t === taskId && g.e > this.clock() && typeof g.r === 'string' ? g : null;
    } catch {
      return null;
    }
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function stripCookie(header: string | undefined, name: string): string {
  return (header ?? '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith(`${name}=`))
    .join('; ');
}

const esc = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The proxy's own pages (the IDE is not there): what happened and the way back — the task's detail page
 * (its owner can open, restart or read the log there), or the console for someone who may not see the task.
 * `refresh`: the IDE is still starting; the page tries again every 5 s. The body's side padding keeps the
 * card off the screen's edges on a phone (at 375 px it was flush with both).
 */
export function proxyPage(text: string, back: { href: string; label: string }, refresh = false): string {
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh ? '<meta http-equiv="refresh" content="5">' : ''}<title>开发环境 - 算力调度服务平台</title><link rel="icon" href="data:,"></head><body style="margin:0;padding:12vh 16px 24px;font-family:system-ui,'Noto Sans CJK SC',sans-serif;background:#f5f7fa;color:#1f2937"><main style="max-width:520px;margin:0 auto;padding:clamp(20px,6vw,32px);background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.08)"><h2 style="margin:0 0 12px;font-size:20px">开发环境</h2><p style="margin:0 0 24px;line-height:1.7">${esc(text)}</p><a href="${esc(back.href)}" style="display:inline-block;padding:6px 16px;border-radius:6px;background:#1677ff;color:#fff;text-decoration:none">${back.label}</a></main></body></html>`;
}
