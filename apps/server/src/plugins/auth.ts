import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal, SessionService } from '../modules/auth/session.service';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes reachable without a token (login, register, code, rsa-key, payment notify…). */
    public?: boolean;
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
 * Every route needs a valid `token` header unless its config says `public: true`. Runs before validation
 * so that an anonymous caller learns only that they must log in (10133), not the shape of the body.
 */
export function registerAuth(app: FastifyInstance, sessions: SessionService): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.public || !req.routeOptions.url) return;
    req.principal = await sessions.verify(tokenOf(req));
  });
}
