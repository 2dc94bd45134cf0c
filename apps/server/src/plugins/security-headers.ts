import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * Helmet's headers on every answer. None of them depends on the request (no CSP nonces), so helmet runs
 * once at start against a recording response and each request just copies the recorded set into Fastify's
 * reply headers. Running helmet's middleware per request (its `res.setHeader` calls, each validated by
 * Node) measured ~20 % of the benchmarked API route; @fastify/helmet additionally rebuilt the middleware
 * and re-parsed the CSP on every request.
 */
export function registerSecurityHeaders(app: FastifyInstance, connectOrigins: string[]): void {
  const middleware = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // antd injects its CSS-in-JS styles at runtime; hash-wasm compiles WebAssembly in the hash worker.
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'", 'ws:', 'wss:', ...connectOrigins],
        workerSrc: ["'self'", 'blob:'],
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: () => undefined,
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
  });
  // HSTS over plain HTTP is meaningless at best, and pins a host that also serves plain HTTP (a dev box on
  // localhost) to HTTPS at worst: sent only when the request came over HTTPS — directly, or per the
  // X-Forwarded-Proto of a proxy listed in trustProxy (Fastify's req.protocol honours exactly that).
  const hsts = headers['strict-transport-security'];
  delete headers['strict-transport-security'];
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(headers);
    if (hsts && req.protocol === 'https') reply.header('strict-transport-security', hsts);
    done();
  });
  // Answers of the API carry the user's data (profile, messages, orders, tokens): no browser or proxy cache
  // may keep them. Routes that want caching (avatars, console assets) set their own Cache-Control first.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
}
