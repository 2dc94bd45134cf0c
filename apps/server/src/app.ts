import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { AVATAR_MAX_BYTES, WS_BASE, ErrorCode } from '@suanli/contracts';
import type { CenterConfig } from './centers/centers';
import { loadCentersFile } from './centers/centers-file';
import type { Config } from './config';
import { createCenterStorage } from './center-storage/center-storage.module';
import type { AppContext, Infra } from './context';
import { migrate, openDb, sqliteFileIn } from './db/db';
import { createAccessModule } from './modules/access/access.module';
import { createAuthModule } from './modules/auth/auth.module';
import { createAuditModule } from './modules/audit/audit.module';
import { createMailModule } from './mail/mail.module';
import { createAccessLogModule } from './modules/access-log/access-log.module';
import { createEshellModule } from './modules/eshell/eshell.module';
import { createAssetModule } from './modules/asset/asset.module';
import { createImageModule } from './modules/image/image.module';
import { createKeypairModule } from './modules/keypair/keypair.module';
import { createResourceModule } from './modules/resource/resource.module';
import { createClusterAccountModule } from './modules/cluster-account/cluster-account.module';
import { createCenterModule } from './modules/center/center.module';
import { createOverviewModule } from './modules/overview/overview.module';
import { createFoundationModule } from './modules/foundation/foundation.module';
import { createMessageModule } from './modules/message/message.module';
import { createOrderModule } from './modules/order/order.module';
import { createSlurmModule } from './modules/slurm/slurm.module';
import { createTaskModule } from './modules/task/task.module';
import { ImageCatalogue } from './modules/training/image-catalogue';
import { createTrainingModule } from './modules/training/training.module';
import { createExecutor } from './executors/create-executor';
import { createUserAdmin, createUserDirectory, createUserModule } from './modules/user/user.module';
import { registerModuleHooks, registerModuleRoutes, registerModuleSockets, type ModuleMount } from './modules/module-mount';
import { createSyncModule } from './modules/sync/sync.module';
import { createWorkorderModule } from './modules/workorder/workorder.module';
import { createTeamModule } from './modules/team/team.module';
import { HttpSyncReceiver } from './file-service/sync-clients';
import type { SyncReceiver } from './file-service/sync.service';
import { AppError } from './errors';
import { loggerOptions } from './lib/log';
import { sharedCompilers } from './lib/schema-compilers';
import { registerAuth } from './plugins/auth';
import { registerClosing } from './plugins/closing';
import { registerEnvelope } from './plugins/envelope';
import { registerGuide } from './plugins/guide';
import { defaultIdeOrigin, IdeOrigin } from './modules/training/ide-origin';
import { IDE_ROUTE_PREFIX } from './modules/training/ide-proxy';
import { registerRateLimit } from './plugins/rate-limit';
import { registerSecurityHeaders } from './plugins/security-headers';
import { createBus } from './realtime/bus';
import { createRealtimeModule } from './realtime/realtime.module';
import type { SocketHub } from './realtime/socket-hub';
import type { UserService } from './modules/user/user.service';
import type { MeteringRunner } from './modules/order/metering.runner';
import type { EshellService } from './modules/eshell/eshell.service';
import type { KeyPairService } from './modules/keypair/keypair.service';
import type { ResourceService } from './modules/resource/resource.service';
import type { AccessLogService } from './modules/access-log/access-log.service';
import { mountFileServices } from './file-service/mount';
import { HttpAuthorizedKeys, type AuthorizedKeysClient } from './modules/keypair/authorized-keys.client';
import { named } from './lib/named-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** The live-updates hub of this process (tests shorten its timings; benches read its stats). */
    wsHub: SocketHub;
    /** Accounts (the demo seed creates one through it). */
    users: UserService;
    /** Orders, grants and metering (the demo seed grants through it; tests run metering passes directly). */
    order: Awaited<ReturnType<typeof createOrderModule>>;
    /** The metering runner (ADR 0015): `metering.pass()` meters now instead of after the next poll. */
    metering: MeteringRunner;
    /** The task engine (the demo seed submits through it; tests drive its poller and executors). */
    tasks: ReturnType<typeof createTaskModule>;
    /** The web shell (tests shorten its idle timeout and read its open shells). */
    eshell: EshellService;
    keypairs: KeyPairService;
    resources: ResourceService;
    /** Datasets and models (tests wait for copies with `datasets.idle()`; the demo seed creates public ones). */
    assets: Awaited<ReturnType<typeof createAssetModule>>;
    /** Images (the registry harness reads the token certificate the registry must trust). */
    images: Awaited<ReturnType<typeof createImageModule>>;
    /** Cross-center sync (tests wait for jobs with `syncs.runner.idle()`). */
    syncs: ReturnType<typeof createSyncModule>;
    /** Access records (tests run the renewal round of a "replica" with `accessLog.tick()`). */
    accessLog: AccessLogService;
    /** Orders and compute power (tests run the Alipay reconciliation's sweep with `orders.reconciler.sweep()`). */
    orders: Awaited<ReturnType<typeof createOrderModule>>;
    /** Centers' status and packages (tests seed again, as a restart would, with `centerAdmin.service.seed()`). */
    centerAdmin: Awaited<ReturnType<typeof createCenterModule>>;
  }
}

/**
 * The gateway: one Fastify app hosting every /gateway service, the live-updates socket, the embedded file
 * services and the built console. `main.ts` and every test build it through here.
 */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  // Develop tasks' IDEs are served on hosts of their own (ADR 0014): a request for one goes to the IDE proxy
  // whatever its path, before routing — none of the console's or the API's routes exist on those hosts.
  // The default template is derived from publicUrl once per value, not on every request (URL parse).
  let derived: { publicUrl: string; template: string } | undefined;
  const ideOrigin = new IdeOrigin(() => {
    if (config.ideOrigin) return config.ideOrigin;
    if (derived?.publicUrl !== config.publicUrl) derived = { publicUrl: config.publicUrl, template: defaultIdeOrigin(config.publicUrl) };
    return derived.template;
  });
  const app = Fastify({
    rewriteUrl: (req) => {
      const task = ideOrigin.taskOf(req.headers.host);
      return task ? `${IDE_ROUTE_PREFIX}/${task}${req.url ?? '/'}` : (req.url ?? '/');
    },
    logger: loggerOptions(config.logLevel, config.logStream),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    // Fastify's default compilers, shared by the apps of a process: a schema is compiled once (lib/schema-compilers.ts).
    schemaController: { compilersFactory: sharedCompilers },
  });

  // The centers file, checked once for the whole process (a mistake stops the start naming the field).
  const { centers, offlinePayment, images: publicImages } = loadCentersFile(config.centersFile, config.dataDir);
  const handle = openDb({ databaseUrl: config.databaseUrl, sqliteFile: sqliteFileIn(config.dataDir) });
  await migrate(handle.db);
  const bus = createBus(config.redisUrl, config.redisChannel);
  // Each center's storage: on this host, or through the center's file service (centers file, ADR 0016).
  const centerStorage = createCenterStorage({ centers, dataDir: config.dataDir, clock: config.clock });
  const infra: Infra = { config, db: handle.db, engine: handle.engine, clock: config.clock, centers, offlinePayment, storage: centerStorage.storages, bus, log: app.log };

  // Modules, in boot order (docs/adding-a-module.md): each is built from infra and the services of the
  // modules before it, and nothing is patched in afterwards. First those whose services are in the context.
  // The user module's read side first: the access module checks account state through it, and the session
  // service loads every principal's roles through the access module.
  const userDirectory = createUserDirectory(infra);
  const access = createAccessModule(infra, (id) => userDirectory.status(id));
  const { sessions } = createAuthModule(infra, access.service);
  const audit = createAuditModule(infra, access.service, userDirectory);
  const message = createMessageModule(infra);
  const clusterAccount = createClusterAccountModule(infra);
  const mail = createMailModule(infra);
  const ctx: AppContext = Object.freeze({
    ...infra,
    userDirectory,
    access: access.service,
    sessions,
    audit: audit.service,
    clusterAccounts: clusterAccount.service,
    sender: mail.sender,
    notify: message.notify,
    notifyEach: message.notifyEach,
  });
  const user = await createUserModule(ctx);
  // Centers' status and packages (the centers file copied into the database on the first start): read by
  // the users' center lists, 购买算力 and every submit.
  const center = await createCenterModule(ctx);
  const foundation = createFoundationModule(ctx, () => center.service.availability());
  const realtime = createRealtimeModule(ctx);
  const images = new ImageCatalogue(publicImages, centers);
  const image = await createImageModule(ctx);
  const executors = new Map(centers.map((c) => [c.id, createExecutor(c, { dataDir: config.dataDir, local: config.compute?.local })]));
  // Compute power before the task engine: every submit passes its gate, and tasks are metered after each poll
  // of their center by the replica leading it (ADR 0015).
  // Teams before compute power: a team pays for its members' tasks and buys packages (ADR 0017).
  const team = createTeamModule(ctx);
  const order = await createOrderModule(ctx, center.service, team.service, executors);
  // A task's image: a public one of the catalogue, or a private one named by its registry reference. The
  // modules after it get the task module typed down to the narrow port each declares (AssetTasks,
  // TrainingModuleTasks, SlurmModuleTasks, the work orders' names, the resource dashboard's usage).
  const task = createTaskModule(ctx, executors, (id) => images.get(id) ?? image.service.lookup(id), order.metering, center.service);
  const metering = order.runMetering(task.meterSource);
  task.afterPoll((id) => metering.afterPoll(id));
  const accessLog = createAccessLogModule(ctx);
  // What the gateway asks of a center's file service (the sync's receiving side, the authorized_keys edit):
  // in-process for a center served here (the maps are filled in by mountFileServices below), any other
  // through its fileServiceUrl.
  const onFileService =
    <T>(local: Map<string, T>, remote: (url: string, center: CenterConfig) => T) =>
    (id: string): T => {
      const here = local.get(id);
      if (here) return here;
      const c = centers.find((x) => x.id === id);
      if (!c?.fileServiceUrl) throw new AppError(ErrorCode.INTERNAL_FAILED, `分中心 ${id} 的文件服务不可用`);
      return remote(c.fileServiceUrl, c);
    };
  const localReceivers = new Map<string, SyncReceiver>();
  const sync = createSyncModule(ctx, onFileService(localReceivers, (url) => new HttpSyncReceiver(url)), (id) => center.service.requireOpen(id), config.sync);
  const assets = await createAssetModule(ctx, task, {
    versionCopy: (versionId, centerId) => sync.service.versionCopy(versionId, centerId),
    syncVersion: (ownerId, v) => sync.service.syncVersion(ownerId, v),
  }, {
    rolesOf: (userId) => team.service.rolesOf(userId),
    memberTeam: (p, teamId) => team.service.memberTeam(p, teamId),
    memberIds: (teamId) => team.service.memberIds(teamId),
    names: (ids) => team.service.names(ids),
    afterMembership: (fn) => team.afterMembership(fn),
  });
  // Tasks waiting for a mounted version to reach their center are released (or failed) after each poll.
  task.afterPoll((id, round) => assets.settleWaiting(id, round.waiting));
  const training = createTrainingModule(ctx, task, images, image.service, accessLog.service, assets.resolveMounts, ideOrigin, () => center.service.availability());
  task.afterPoll(() => training.ide.sweep());
  const slurm = createSlurmModule(ctx, task, () => center.service.availability());
  const localAuthorizedKeys = new Map<string, AuthorizedKeysClient>();
  const keypair = createKeypairModule(ctx, onFileService(localAuthorizedKeys, (url, c) => new HttpAuthorizedKeys(url, c.name)));
  const resource = createResourceModule(ctx, executors, task.usage, () => center.service.availability());
  task.afterPoll((id) => resource.service.sample(id));
  const eshell = createEshellModule(ctx, accessLog.service, realtime.guards, keypair.service);
  const workorder = createWorkorderModule(ctx, task.queries);
  const userAdmin = createUserAdmin(ctx, user.service, (id) => task.usage.running(id));
  const overview = createOverviewModule(ctx, {
    running: () => task.usage.runningByCenter(),
    days: (from, to) => order.records.platformDays(from, to),
    states: () => center.service.availability(),
  });

  /**
   * The modules the gateway serves and runs, in one list (docs/adding-a-module.md §7). Routes register in
   * this order; `start` hooks run in this order when the app is ready, `close` hooks in reverse when it
   * closes, before the database. So a module comes after those it uses, and today's order means: the task
   * poller starts first and stops last (handing its centers over after everything that submits or waits on
   * tasks has stopped); sync jobs resume after it and stop before it, after the image imports and asset
   * copies that feed them; the access records' renewal stops only after the web shells have ended their
   * records; the sockets (realtime) close first, before anything they report on stops. The centers' storages
   * (and the route file services check the gateway's storage grants with) come before all of them.
   */
  const modules: ModuleMount[] = [
    // First: the storages are closed last, after every module that reads or writes a center's disk.
    centerStorage.mount,
    foundation.mount,
    center.mount,
    user.mount,
    message.mount,
    task.mount,
    sync.mount,
    image.mount,
    assets.mount,
    accessLog.mount,
    order.mount,
    training.mount,
    slurm.mount,
    keypair.mount,
    resource.mount,
    workorder.mount,
    team.mount,
    userAdmin.mount,
    overview.mount,
    audit.mount,
    eshell.mount,
    realtime.mount,
  ];

  app.decorate('ctx', ctx);
  app.decorate('wsHub', realtime.hub);
  app.decorate('users', user.service);
  app.decorate('order', order);
  app.decorate('metering', metering);
  app.decorate('tasks', task);
  app.decorate('eshell', eshell.service);
  app.decorate('keypairs', keypair.service);
  app.decorate('resources', resource.service);
  app.decorate('assets', assets);
  app.decorate('images', image);
  app.decorate('syncs', sync);
  app.decorate('accessLog', accessLog.service);
  app.decorate('orders', order);
  app.decorate('centerAdmin', center);
  app.addHook('onClose', async () => {
    await bus.close();
    await handle.close();
  });

  registerEnvelope(app);
  // Its preClose hook first, so that it sees the answers in flight the moment closing starts; then the
  // modules' close hooks (reverse list order), then the database and the bus (onClose above).
  registerClosing(app);
  registerModuleHooks(app, modules);
  registerSecurityHeaders(app, centers.flatMap((c) => (c.fileServiceUrl ? [new URL(c.fileServiceUrl).origin] : [])));
  await registerRateLimit(app, config);
  // After helmet and rate limiting, so refused requests still get the headers and still count.
  registerAuth(app, sessions, access.service);
  await app.register(multipart, { limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 20 } });
  await app.register(swagger, {
    openapi: {
      info: { title: '算力调度服务平台 API', version: '1.0.0', description: '统一响应格式：{message:{code,message}, data}；除登录、注册等公开接口外，请求头须带 `token`（登录后获得）。' },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'token' } } },
      security: [{ token: [] }],
    },
  });
  await app.register(named(async (docs) => {
    // The explorer and its assets are public; every API route it lists still needs a token.
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), public: true };
    });
    // Swagger UI's page has no viewport meta, so phones laid it out 980 px wide (issue 22 item 9): the page
    // gets one, and a stylesheet that lets its rows wrap at phone widths.
    docs.addHook('onSend', async (req, reply, payload) => {
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
      return payload.replace('<meta charset="UTF-8">', '<meta charset="UTF-8">\n      <meta name="viewport" content="width=device-width, initial-scale=1">');
    });
    await docs.register(swaggerUi, {
      routePrefix: '/gateway/docs',
      uiConfig: { docExpansion: 'list' },
      staticCSP: true,
      theme: { title: '算力调度服务平台 · API 文档', css: [{ filename: 'phone.css', content: DOCS_PHONE_CSS }] },
    });
  }, 'api docs'));

  // The one route table of the gateway: each module's routes under the base paths it declares.
  await registerModuleRoutes(app, modules);
  // The sockets: @fastify/websocket adds an onRequest and an onResponse hook to every route of the scope it
  // is registered in; registered in this scope, only the socket routes pay them, not every API call.
  await app.register(
    named(async (sockets) => {
      await sockets.register(websocket, { options: { maxPayload: 64 * 1024 } });
      await registerModuleSockets(sockets, modules);
    }, 'sockets'),
    { prefix: WS_BASE },
  );
  await mountFileServices(app, ctx, {
    grants: sync.grants,
    storageGrants: (raw, centerId) => centerStorage.grants.resolve(raw, centerId),
    receivers: localReceivers,
    authorizedKeys: localAuthorizedKeys,
    // 文件管理's team folder (ADR 0018): the caller's membership now, asked on every call.
    teams: (userId, teamId) => team.service.usesSpace({ userId, roles: ['user'] }, teamId),
  });
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

/** The API explorer at phone widths: the operation rows wrap instead of pushing the page sideways. */
const DOCS_PHONE_CSS = `@media (max-width: 600px) {
  .swagger-ui .wrapper { padding: 0 8px; }
  .swagger-ui .info { margin: 16px 0; }
  .swagger-ui .info .title { font-size: 24px; }
  .swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
  .swagger-ui .opblock .opblock-summary-path { flex-shrink: 1; max-width: calc(100vw - 120px); word-break: break-all; }
  .swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; }
  .swagger-ui .opblock-tag { font-size: 18px; }
  .swagger-ui table, .swagger-ui .highlight-code, .swagger-ui .model-box { display: block; max-width: 100%; overflow-x: auto; }
  .swagger-ui .topbar .wrapper { padding: 0 8px; }
  .swagger-ui .topbar .download-url-wrapper { display: none; }
}
`;
