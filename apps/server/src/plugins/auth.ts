import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Role } from '@suanli/contracts';
import { forbidden } from '../errors';
import type { AccessService } from '../modules/access/access.service';
import type { Principal } from '../modules/access/principal';
import type { SessionService } from '../modules/auth/session.service';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes reachable without a token (login, register, code, rsa-key, payment notify…). */
    public?: boolean;
    /**
     * The platform role a route requires (`operator`): anyone else gets 1020 before validation and before
     * the handler, so the refusal says nothing about the body or the data. The service still asks the
     * access module for the action itself (it is also called outside routes).
     */
    role?: Role;
    /** Data-plane routes (file transfer) counted against a per-IP limit 20× the API's. */
    bulk?: boolean;
    /** The console's own static files: never counted against an API rate limit (a reload fetches dozens). */
    staticFiles?: boolean;
  }
}

export function tokenOf(req: FastifyRequest): string | undefined {
  const h = req.headers.token;
  return Array.isArray(h) ? h[0] : h;
}

/** The caller of an authenticated route; the hook guarantees it is set. */
export function principal(req: FastifyRequest): Principal {
  if (!req.principal) throw new Error('principal() on a public route');
  return req.principal;
}

/**
 * Every route needs a valid `token` header unless its config says `public: true`, and the role its config
 * names (`role: 'operator'`). Runs before validation so that an anonymous caller learns only that they must
 * log in (10133), and a caller without the role only that they may not (1020) — not the shape of the body.
 * The roles come with the verified principal: the role check costs no query.
 */
export function registerAuth(app: FastifyInstance, sessions: SessionService, access: Pick<AccessService, 'hasRole'>): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    if (config?.public || !req.routeOptions.url) return;
    const p = await sessions.verify(tokenOf(req));
    if (config?.role && !access.hasRole(p, config.role)) throw forbidden();
    req.principal = p;
  });
}
