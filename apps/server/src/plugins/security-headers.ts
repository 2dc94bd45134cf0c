import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * Helmet's headers on every answer. The middleware is built once here; @fastify/helmet rebuilt it (and
 * re-parsed the CSP) on every request, which showed up as a measurable share of the hot path.
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
  app.addHook('onRequest', (req, reply, done) => {
    middleware(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}
