import websocket from '@fastify/websocket';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ErrorCode, HTTP_STATUS_MESSAGES, SOCKET_CLOSE_BAD_TOKEN, WS_BASE, WS_PATH } from '@suanli/contracts';
import { AppError } from '../errors';
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
function originAllowed(req: FastifyRequest, allowed: Set<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return allowed.has(origin) || origin === `${req.protocol}://${req.host}`;
}

/** Per handshake: the token's hash and the revocation generation its verification started at. */
const verified = new WeakMap<FastifyRequest, { tokenHash: string; generation: number }>();

/**
 * Registered under WS_BASE. `WS_PATH?token=…`: live updates for the signed-in user.
 * - Foreign or absent Origin → the upgrade is refused with HTTP 403 (no socket is ever opened).
 * - Missing/unknown/expired/revoked token → the handshake completes and the socket is closed at once with
 *   4001, reason the session code, so the console can tell "log in again" from a network failure.
 * - Session revoked later (logout, password change; on any gateway, through the bus) → 4001 at once.
 * - More than SOCKET_MAX_FRAMES_PER_SECOND frames in a second → 4029.
 * - Silent for 60 s → closed with 4008; sessions re-checked every 60 s → 4001 when expired.
 */
export function wsRoutes(hub: SocketHub, sessions: SessionService, allowedOrigins: Set<string>): FastifyPluginAsyncTypebox {
  return async (app) => {
    // @fastify/websocket adds an onRequest and an onResponse hook to every route of the scope it is
    // registered in; registered in this plugin, only the socket routes pay them, not every API call.
    await app.register(websocket, { options: { maxPayload: 64 * 1024 } });

    app.get(
      WS_PATH.slice(WS_BASE.length),
      {
        websocket: true,
        // The token travels in the query (browsers cannot set headers on a WebSocket), so the header-based
        // auth hook is skipped and the token is verified here.
        config: { public: true },
        onRequest: async (req) => {
          if (!originAllowed(req, allowedOrigins)) throw new AppError(ErrorCode.NO_PERMISSION, HTTP_STATUS_MESSAGES[403], 403);
        },
        preHandler: async (req) => {
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
      (socket, req) => {
        const p = req.principal;
        if (!p) {
          socket.close(SOCKET_CLOSE_BAD_TOKEN, String(refused.get(req) ?? ErrorCode.NOT_LOGGED_IN));
          return;
        }
        const v = verified.get(req)!;
        hub.add(socket, { ...p, tokenHash: v.tokenHash }, sessions.generation !== v.generation);
      },
    );
  };
}
