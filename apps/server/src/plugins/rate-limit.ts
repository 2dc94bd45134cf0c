import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { ErrorCode } from '@suanli/contracts';
import type { Config } from '../config';
import { AppError } from '../errors';

declare module 'fastify' {
  interface FastifyInstance {
    createRateLimit(options: {
      max: number;
      timeWindow: number;
      keyGenerator?: (req: FastifyRequest) => string;
    }): (req: FastifyRequest) => Promise<{ isExceeded: boolean; ttlInSeconds: number }>;
  }
}

/** Counts one request of a key; answers the seconds to wait when it is over the limit, else 0. */
type Limiter = (key: string, req: FastifyRequest) => number | Promise<number>;

/** File transfer (`config.bulk`) has its own, larger budget: a folder upload is one request per file/chunk. */
const BULK_FACTOR = 20;

/**
 * A fixed window per key, in this process. Used when there is no Redis (one gateway process): the
 * plugin's local store measured ~20 % of the benchmarked API route; this is a Map lookup.
 */
export function localWindow(max: number, windowMs: number, now: () => number = Date.now) {
  const hits = new Map<string, { n: number; resetAt: number }>();
  const limiter: Limiter = (key) => {
    const t = now();
    let e = hits.get(key);
    if (!e || t >= e.resetAt) {
      e = { n: 0, resetAt: t + windowMs };
      hits.set(key, e);
    }
    e.n++;
    return e.n > max ? Math.max(1, Math.ceil((e.resetAt - t) / 1000)) : 0;
  };
  /** Forgets finished windows so a scan from many addresses cannot grow the map without bound. */
  const sweep = () => {
    const t = now();
    for (const [k, e] of hits) if (t >= e.resetAt) hits.delete(k);
  };
  return { limiter, sweep };
}

/**
 * Per-IP limits. The global limit runs as an app-level `onRequest` hook *before* authentication: the
 * plugin's own `global` mode attaches route-level hooks, which run after app-level ones, so anonymous
 * floods answered 10133 by the auth hook were never counted. Routes may add stricter limits of their own
 * (`config.rateLimit`, e.g. login and code sends); those run as the plugin's route hooks. With REDIS_URL the
 * counters live in Redis so every gateway process shares them (a Redis outage lets requests through);
 * without it they are a window per key in this process.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  const { max, timeWindowMs } = config.rateLimit;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 500, maxRetriesPerRequest: 1 }) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'suanli-rl:' } : {}),
  });

  let api: Limiter;
  let bulk: Limiter;
  if (redis) {
    const shared = (limit: number, prefix: string): Limiter => {
      const check = app.createRateLimit({ max: limit, timeWindow: timeWindowMs, keyGenerator: (req) => `${prefix}${req.ip}` });
      return async (_key, req) => {
        const r = await check(req);
        return r.isExceeded ? Math.max(1, r.ttlInSeconds) : 0;
      };
    };
    api = shared(max, '');
    bulk = shared(max * BULK_FACTOR, 'bulk:');
  } else {
    const a = localWindow(max, timeWindowMs);
    const b = localWindow(max * BULK_FACTOR, timeWindowMs);
    api = a.limiter;
    bulk = b.limiter;
    const timer = setInterval(() => (a.sweep(), b.sweep()), timeWindowMs).unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }

  app.addHook('onRequest', async (req, reply) => {
    // The console's HTML, scripts and styles are files, not API calls: one page load fetches dozens of
    // them, so counting them got a user who reloads a few times a minute refused his own app.
    if (req.routeOptions.config?.staticFiles) return;
    const isBulk = req.routeOptions.config?.bulk;
    const wait = await (isBulk ? bulk(`bulk:${req.ip}`, req) : api(req.ip, req));
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw new AppError(ErrorCode.NO_PERMISSION, '请求过于频繁，请稍后再试', 429);
    }
  });
}
