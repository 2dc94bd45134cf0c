import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors';
import { CONSOLE_BASE_PATH, IDE_PROXY_BASE } from '@suanli/contracts';
import type { AccessLogService } from '../access-log/access-log.service';
import type { Principal } from '../auth/session.service';
import type { TaskService } from '../task/task.service';

/** A ticket is good for the first hop only, within this long. */
const TICKET_MS = 60_000;
/** The cookie that follows lives as long as a session may (the session itself is re-checked every request). */
const COOKIE_MS = 12 * 3600_000;
const COOKIE = 'suanli_ide';

interface Grant {
  /** task id */
  t: string;
  /** user id */
  u: string;
  /** session id (its revocation ends the grant) */
  s: string;
  /** expiry, epoch ms */
  e: number;
  /** kind: ticket (first hop) or cookie */
  k: 'ticket' | 'cookie';
  /** the access record of this proxy session (cookie only) */
  r?: string;
}

/** Is this session still valid (not revoked, not expired)? */
export type SessionCheck = (sessionId: string) => Promise<boolean>;

/**
 * The authenticated reverse proxy in front of develop tasks' IDEs (issue 10 item 3), at
 * `/gateway/training/proxy/<taskId>/…`: owner only, the task RUNNING, the user's session valid at every
 * request. The console gets a one-minute ticket (`ticketFor`); its first hop sets an HttpOnly, SameSite=Strict
 * cookie scoped to the task's path and redirects to the clean URL. Requests stream both ways (no buffering);
 * the IDE's own token (written by the job, never shown to the browser) is added here, and our cookie is
 * taken out of what the IDE sees. Grants are HMAC-signed with a secret under the data dir, so every
 * gateway sharing it accepts them.
 */
export class IdeProxy {
  private readonly secret: Buffer;
  private lastSweep = 0;

  constructor(
    private readonly tasks: TaskService,
    private readonly access: AccessLogService,
    private readonly sessionValid: SessionCheck,
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

  /** The first-hop URL for the owner of a running develop task (2011 before its IDE reported its address). */
  async ticketFor(p: Principal, taskId: string): Promise<{ url: string }> {
    await this.tasks.ideEndpoint(p.userId, taskId);
    const ticket = this.sign({ t: taskId, u: p.userId, s: p.sessionId, e: this.clock() + TICKET_MS, k: 'ticket' });
    return { url: `${IDE_PROXY_BASE}/${encodeURIComponent(taskId)}/?ticket=${ticket}` };
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

  /** Fastify plugin registered at IDE_PROXY_BASE (public routes: the grant is the credential). */
  routes(): FastifyPluginAsync {
    return async (app) => {
      const handler = (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => this.handle(req, reply);
      for (const url of ['/:id', '/:id/', '/:id/*']) {
        app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], url, config: { public: true, bulk: true }, handler });
      }
      // Bodies go to the IDE as they are: no parsing here.
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', (_req, _payload, done) => done(null));
    };
  }

  private async handle(req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const taskId = req.params.id;
    const base = `${IDE_PROXY_BASE}/${encodeURIComponent(taskId)}/`;
    const url = new URL(req.url, 'http://gateway');

    const ticket = url.searchParams.get('ticket');
    if (ticket !== null) {
      const g = this.verify(ticket, 'ticket', taskId);
      if (!g || !(await this.sessionValid(g.s))) return this.refuse(reply, 403, '访问链接已失效，请回到任务详情页重新点击“打开”。', taskId);
      let where;
      try {
        where = await this.tasks.ideEndpoint(g.u, taskId);
      } catch (e) {
        return this.refuse(reply, 503, e instanceof AppError ? e.message : '开发环境暂时无法访问', taskId);
      }
      // One access record per opening (who, center, account, task, address); it ends with the task or the session.
      const r = await this.access.open({ kind: 'proxy', userId: g.u, centerId: where.subCenterId, account: where.account, target: taskId, clientIp: req.ip });
      const cookie = this.sign({ ...g, e: this.clock() + COOKIE_MS, k: 'cookie', r });
      url.searchParams.delete('ticket');
      const clean = url.pathname === `${IDE_PROXY_BASE}/${encodeURIComponent(taskId)}` ? base : url.pathname + (url.search || '');
      return reply
        .header('set-cookie', `${COOKIE}=${cookie}; Path=${base}; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MS / 1000}`)
        .header('cache-control', 'no-store')
        .redirect(clean, 303);
    }

    const g = this.verify(readCookie(req.headers.cookie, COOKIE), 'cookie', taskId);
    if (g && !(await this.sessionValid(g.s)) && g.r) await this.access.close(g.r, 'revoked');
    if (!g || !(await this.sessionValid(g.s))) return this.refuse(reply, 403, '无权访问该开发环境：请登录后从任务详情页点击“打开”。', null);
    let target;
    try {
      target = await this.tasks.ideEndpoint(g.u, taskId);
    } catch (e) {
      if (g.r) await this.access.close(g.r, 'stopped');
      const msg = e instanceof AppError ? e.message : '开发环境暂时无法访问';
      return this.refuse(reply, e instanceof AppError && e.code === 1205 ? 404 : 503, msg, taskId);
    }
    reply.hijack();
    const headers = { ...req.headers, host: `${target.host}:${target.port}`, authorization: `token ${target.token}` };
    const rest = stripCookie(req.headers.cookie, COOKIE);
    if (rest) headers.cookie = rest;
    else delete headers.cookie;
    if (String(req.headers.upgrade).toLowerCase() === 'websocket') return this.tunnel(req, target, headers);
    const upstream = http.request({ host: target.host, port: target.port, method: req.method, path: req.url, headers }, (res) => {
      reply.raw.writeHead(res.statusCode ?? 502, res.headers);
      res.pipe(reply.raw);
    });
    upstream.on('error', () => {
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(502, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        reply.raw.end(proxyPage('开发环境正在启动或暂时无法连接，请稍后刷新本页（每 5 秒自动刷新）。', taskId, true));
      } else reply.raw.destroy();
    });
    req.raw.pipe(upstream);
  }

  /**
   * A WebSocket (Jupyter's kernel channels): the upgrade goes to the IDE with its token, its 101 comes back on
   * the browser's socket, then bytes flow both ways untouched. `req.raw.socket` is the browser's connection
   * (the server's upgrade listener routed it here).
   */
  private tunnel(req: FastifyRequest, target: { host: string; port: number }, headers: http.OutgoingHttpHeaders) {
    const client = req.raw.socket;
    const upstream = http.request({ host: target.host, port: target.port, method: 'GET', path: req.url, headers });
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

  private refuse(reply: FastifyReply, status: number, text: string, taskId: string | null) {
    return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(proxyPage(text, taskId));
  }

  private sign(g: Grant): string {
    const body = Buffer.from(JSON.stringify(g)).toString('base64url');
    return `${body}.${createHmac('sha256', this.secret).update(body).digest('base64url')}`;
  }

  private verify(value: string | undefined | null, kind: Grant['k'], taskId: string): Grant | null {
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
      return g.k === kind && g.t === taskId && g.e > this.clock() ? g : null;
    } catch {
      return null;
    }
  }
}

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
export function proxyPage(text: string, taskId: string | null, refresh = false): string {
  const back = taskId
    ? { href: `${CONSOLE_BASE_PATH}/training/detail/develop/${encodeURIComponent(taskId)}`, label: '返回任务详情' }
    : { href: `${CONSOLE_BASE_PATH}/`, label: '返回控制台' };
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh ? '<meta http-equiv="refresh" content="5">' : ''}<title>开发环境 - 算力调度服务平台</title><link rel="icon" href="data:,"></head><body style="margin:0;padding:12vh 16px 24px;font-family:system-ui,'Noto Sans CJK SC',sans-serif;background:#f5f7fa;color:#1f2937"><main style="max-width:520px;margin:0 auto;padding:clamp(20px,6vw,32px);background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.08)"><h2 style="margin:0 0 12px;font-size:20px">开发环境</h2><p style="margin:0 0 24px;line-height:1.7">${esc(text)}</p><a href="${esc(back.href)}" style="display:inline-block;padding:6px 16px;border-radius:6px;background:#1677ff;color:#fff;text-decoration:none">${back.label}</a></main></body></html>`;
}
