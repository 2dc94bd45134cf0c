import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Config } from '../config';
import { named } from '../lib/named-plugin';

/** Where the guide is served; the console's default help address (apps/console/src/app/config.ts). */
export const GUIDE_PREFIX = '/guide';

/** A Chinese page for a stale or mistyped guide address (the API's JSON 404 would mean nothing to a reader). */
const NOT_FOUND_HTML = `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>页面不存在 - 算力调度服务平台 用户指南</title></head>
<body><p>您访问的指南页面不存在，可能已被移动或删除。</p><p><a href="${GUIDE_PREFIX}/">返回用户指南首页</a></p></body></html>
`;

/**
 * The user guide (用户指南): static pages rendered from docs/guide by scripts/build-guide.mjs, served at
 * /guide/. Public, like the console: it is read before signing in (登录与注册) too. Pages are revalidated
 * on every visit (`no-cache` + ETag, so a new release shows at once and an unchanged page costs a 304);
 * files under assets/ carry a content hash in their names and are cached for a year. Skipped when the
 * guide has not been built (as the console is).
 */
export async function registerGuide(app: FastifyInstance, config: Config): Promise<void> {
  const root = config.guideDist;
  if (!root || !fs.existsSync(path.join(root, 'index.html'))) {
    if (root) app.log.warn({ guideDist: root }, 'user guide not built (npm run build): /guide is not served');
    return;
  }
  await app.register(
    named(async (guide) => {
      // Static pages: no token, and not counted against the API's per-IP limit (a page pulls in its
      // stylesheet and screenshots; reading the guide must never lock anyone out of the API).
      guide.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), public: true, staticFiles: true };
      });
      guide.get('', { schema: { hide: true } }, (_req, reply) => reply.redirect(`${GUIDE_PREFIX}/`, 301));
      await guide.register(fastifyStatic, {
        root,
        prefix: '/',
        decorateReply: false,
        index: 'index.html',
        cacheControl: false,
        setHeaders: (reply, file) => {
          const immutable = path.relative(root, file).startsWith(`assets${path.sep}`);
          reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });
      guide.setNotFoundHandler((_req, reply) =>
        reply.code(404).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_FOUND_HTML),
      );
    }, 'guide'),
    { prefix: GUIDE_PREFIX },
  );
}
