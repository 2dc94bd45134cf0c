import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ErrorCode, HTTP_STATUS_MESSAGES, SOCKET_CLOSE_BAD_TOKEN, WS_BASE, WS_PATH } from '@suanli/contracts';
import { AppError } from '../errors';
import type { Principal } from '../modules/access/principal';
import { hashToken, type SessionService } from '../modules/auth/session.service';
import type { SocketHub } from './socket-hub';

/** Why a handshake's token was refused (10133/10157/10307), kept from preHandler to the socket handler. */
const refused = new WeakMap<FastifyRequest, number>();

/**
 * Browsers send Origin on every WebSocket handshake and do not enforce same-origin for it, so this is the
 * only thing stopping another site's page from opening sockets with a token it obtained. Allowed: the
 * configured origins and the gateway's own origin (the console it serves). A handshake without Origin is
 * refused too: the socket exists for the console, and a non-browser client (bench, tests, a script) states
 * the origin it acts for like a browser does — one rule, nothing to special-case (ADR 0005).
 */
export function originAllowed(req: FastifyRequest, allowed: Set<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return allowed.has(origin) || origin === `${req.protocol}://${req.host}`;
}

/** Per handshake: the token's hash and the revocation generation its verification started at. */
const verified = new WeakMap<FastifyRequest, { tokenHash: string; generation: number }>();

/** What a socket handshake's guards concluded: the caller, or the session code it was refused with. */
export type SocketCaller =
  | { ok: true; userId: string; sessionId: string; roles: Principal['roles']; tokenHash: string; stale: boolean }
  | { ok: false; code: number };

/**
 * The handshake rules every socket under WS_BASE shares (the live updates, the web shell), as route
 * options plus a reader of the verdict for the socket handler:
 * - Foreign or absent Origin → the upgrade is refused with HTTP 403 (no socket is ever opened).
 * - Missing/unknown/expired/revoked token → the handshake completes and the handler closes the socket at
 *   once with 4001, reason the session code, so the console can tell "log in again" from a network failure.
 */
export function socketGuards(sessions: SessionService, allowedOrigins: Set<string>) {
  return {
    options: {
      // The token travels in the query (browsers cannot set headers on a WebSocket), so the header-based
      // auth hook is skipped and the token is verified here.
      config: { public: true },
      onRequest: async (req: FastifyRequest) => {
        if (!originAllowed(req, allowedOrigins)) throw new AppError(ErrorCode.NO_PERMISSION, HTTP_STATUS_MESSAGES[403], 403);
      },
      preHandler: async (req: FastifyRequest) => {
        // No querystring schema: a repeated or odd token must end as a 4001 close, not a 1005 answer.
        const { token } = req.query as { token?: unknown };
        const t = typeof token === 'string' ? token : undefined;
        verified.set(req, { tokenHash: t ? hashToken(t) : '', generation: sessions.generation });
        try {
          req.principal = await sessions.verify(t);
        } catch (err) {
          // Anything but a session verdict (e.g. the database is down) fails the upgrade with 500 instead.
          if (!(err instanceof AppError)) throw err;
          refused.set(req, err.code);
        }
      },
    },
    /** `stale`: a revocation happened while the session was being verified; re-check it at once. */
    caller(req: FastifyRequest): SocketCaller {
      const p = req.principal;
      if (!p) return { ok: false, code: refused.get(req) ?? ErrorCode.NOT_LOGGED_IN };
      const v = verified.get(req)!;
      return { ok: true, userId: p.userId, sessionId: p.sessionId, roles: p.roles, tokenHash: v.tokenHash, stale: sessions.generation !== v.generation };
    },
  };
}

/**
 * `WS_PATH?token=…`: live updates for the signed-in user, registered under WS_BASE in the scope that has
 * @fastify/websocket (app.ts). Handshake rules: socketGuards.
 * - Session revoked later (logout, password change; on any gateway, through the bus) → 4001 at once.
 * - More than SOCKET_MAX_FRAMES_PER_SECOND frames in a second → 4029.
 * - Silent for 60 s → closed with 4008; sessions re-checked every 60 s → 4001 when expired.
 */
export function wsRoutes(hub: SocketHub, sessions: SessionService, allowedOrigins: Set<string>): FastifyPluginAsyncTypebox {
  const guards = socketGuards(sessions, allowedOrigins);
  return async (app) => {
    app.get(WS_PATH.slice(WS_BASE.length), { websocket: true, ...guards.options }, (socket, req) => {
      const c = guards.caller(req);
      if (!c.ok) {
        socket.close(SOCKET_CLOSE_BAD_TOKEN, String(c.code));
        return;
      }
      hub.add(socket, { userId: c.userId, sessionId: c.sessionId, tokenHash: c.tokenHash }, c.stale);
    });
  };
}
