import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { AVATAR_MAX_BYTES, FOUNDATION_BASE, MESSAGE_BASE, ORDER_BASE, WS_BASE } from '@suanli/contracts';
import { loadCenters } from './centers/centers';
import type { Config } from './config';
import type { AppContext, Infra } from './context';
import { migrate, openDb } from './db/db';
import { SessionRepository } from './modules/auth/session.repository';
import { SessionService } from './modules/auth/session.service';
import { createMailModule } from './mail/mail.module';
import { createClusterAccountModule } from './modules/cluster-account/cluster-account.module';
import { createFoundationModule } from './modules/foundation/foundation.module';
import { createMessageModule } from './modules/message/message.module';
import { createOrderModule } from './modules/order/order.module';
import { userRoutes } from './modules/user/user.routes';
import { loggerOptions } from './lib/log';
import { registerAuth } from './plugins/auth';
import { registerClosing } from './plugins/closing';
import { registerEnvelope } from './plugins/envelope';
import { registerGuide } from './plugins/guide';
import { registerRateLimit } from './plugins/rate-limit';
import { registerSecurityHeaders } from './plugins/security-headers';
import { createBus } from './realtime/bus';
import { createRealtimeModule } from './realtime/realtime.module';
import type { SocketHub } from './realtime/socket-hub';
import { mountFileServices } from './file-service/mount';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** The live-updates hub of this process (tests shorten its timings; benches read its stats). */
    wsHub: SocketHub;
  }
}

/**
 * The gateway: one Fastify app hosting every /gateway service, the live-updates socket, the embedded file
 * services and the built console. `main.ts` and every test build it through here.
 */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, config.logStream),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  });

  const centers = loadCenters(config.centersFile, config.dataDir);
  const handle = openDb({ databaseUrl: config.databaseUrl, sqliteFile: path.join(config.dataDir, 'suanli.db') });
  await migrate(handle.db);
  const bus = createBus(config.redisUrl, config.redisChannel);
  const infra: Infra = { config, db: handle.db, engine: handle.engine, clock: config.clock, centers, bus, log: app.log };

  // Modules, in boot order (docs/adding-a-module.md): each is built from infra and the services of the
  // modules before it, and nothing is patched in afterwards. First those whose services are in the context.
  const sessions = new SessionService(new SessionRepository(handle.db), config.clock, bus);
  const message = createMessageModule(infra);
  const clusterAccount = createClusterAccountModule(infra);
  const mail = createMailModule(infra);
  const ctx: AppContext = Object.freeze({
    ...infra,
    sessions,
    clusterAccounts: clusterAccount.service,
    sender: mail.sender,
    notify: message.notify,
    notifyEach: message.notifyEach,
  });
  const foundation = createFoundationModule(ctx);
  const order = createOrderModule(ctx);
  const realtime = createRealtimeModule(ctx);

  app.decorate('ctx', ctx);
  app.decorate('wsHub', realtime.hub);
  app.addHook('preClose', () => realtime.hub.close());
  app.addHook('onClose', async () => {
    await bus.close();
    await handle.close();
  });

  registerEnvelope(app);
  registerClosing(app);
  registerSecurityHeaders(app, centers.flatMap((c) => (c.fileServiceUrl ? [new URL(c.fileServiceUrl).origin] : [])));
  await registerRateLimit(app, config);
  // After helmet and rate limiting, so refused requests still get the headers and still count.
  registerAuth(app, sessions);
  await app.register(multipart, { limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 20 } });
  await app.register(swagger, {
    openapi: {
      info: { title: '算力调度服务平台 API', version: '1.0.0', description: 'Envelope: {message:{code,message}, data}. Auth: header `token`.' },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'token' } } },
      security: [{ token: [] }],
    },
  });
  await app.register(async (docs) => {
    // The explorer and its assets are public; every API route it lists still needs a token.
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), public: true };
    });
    await docs.register(swaggerUi, { routePrefix: '/gateway/docs', uiConfig: { docExpansion: 'list' }, staticCSP: true });
  });

  // The one route table of the gateway: each module's routes plugin under its contract's base path.
  await app.register(foundation.routes, { prefix: FOUNDATION_BASE });
  await userRoutes(app, ctx);
  await app.register(message.routes, { prefix: MESSAGE_BASE });
  await app.register(order.routes, { prefix: ORDER_BASE });
  await app.register(realtime.routes, { prefix: WS_BASE });
  await mountFileServices(app, ctx);
  await serveConsole(app, config);
  await registerGuide(app, config);
  return app;
}

/**
 * The built SPA under /console, with history fallback to index.html; `/` goes to the default route. Its
 * files are not API calls and skip the rate limit (`staticFiles`). Hashed assets never change under their
 * name, so browsers keep them a year without asking again; index.html is revalidated on every load so a
 * new release is picked up at once.
 */
async function serveConsole(app: FastifyInstance, config: Config) {
  const dist = config.consoleDist;
  const hasConsole = dist && fs.existsSync(path.join(dist, 'index.html'));
  app.get('/', { config: { public: true, staticFiles: true }, schema: { hide: true } }, (_req, reply) => reply.redirect('/console/training'));
  if (!hasConsole) return;
  // Cache headers are set here per kind of file, not by the plugin (its default would be max-age=0).
  await app.register(fastifyStatic, { root: dist, serve: false, cacheControl: false });
  const indexHtml = fs.readFileSync(path.join(dist, 'index.html'));
  const sendIndex = (_req: unknown, reply: import('fastify').FastifyReply) =>
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  const route = { config: { public: true, staticFiles: true }, schema: { hide: true } };
  app.get('/console', route, sendIndex);
  app.get('/console/*', route, (req, reply) => {
    const rel = (req.params as { '*': string })['*'];
    if (rel.startsWith('assets/')) {
      if (fs.existsSync(path.join(dist, rel))) return reply.header('cache-control', 'public, max-age=31536000, immutable').sendFile(rel);
      // An asset of an older release: a clear 404, not index.html under a script's name.
      return reply.code(404).header('cache-control', 'no-cache').type('text/plain; charset=utf-8').send('Not Found');
    }
    return sendIndex(req, reply);
  });
}
