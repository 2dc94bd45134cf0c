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
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers);
    done();
  });
}
