import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { ErrorCode } from '@suanli/contracts';
import type { Config } from '../config';
import { AppError } from '../errors';

declare module 'fastify' {
  interface FastifyInstance {
    createRateLimit(options: { max: number; timeWindow: number; keyGenerator?: (req: import('fastify').FastifyRequest) => string }): (req: import('fastify').FastifyRequest) => Promise<{ isExceeded: boolean; ttlInSeconds: number }>;
  }
}

/**
 * Per-IP limits. The global limit runs as an app-level `onRequest` hook *before* authentication: the
 * plugin's own `global` mode attaches route-level hooks, which run after app-level ones, so anonymous
 * floods answered 10133 by the auth hook were never counted. Routes may add stricter limits of their own
 * (`config.rateLimit`, e.g. login and code sends); those still run as route hooks. Counters live in Redis
 * when REDIS_URL is set, so every gateway process shares them; a Redis outage lets requests through.
 */
const BULK_FACTOR = 20;

export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 500, maxRetriesPerRequest: 1 }) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'suanli-rl:' } : {}),
  });
  const api = app.createRateLimit({ max: config.rateLimit.max, timeWindow: config.rateLimit.timeWindowMs });
  // File transfer (`config.bulk`) has its own, larger budget: a folder upload is one request per file/chunk.
  const bulk = app.createRateLimit({ max: config.rateLimit.max * BULK_FACTOR, timeWindow: config.rateLimit.timeWindowMs, keyGenerator: (req) => `bulk:${req.ip}` });
  app.addHook('onRequest', async (req, reply) => {
    const r = await (req.routeOptions.config?.bulk ? bulk : api)(req);
    if (r.isExceeded) {
      reply.header('retry-after', String(r.ttlInSeconds));
      throw new AppError(ErrorCode.NO_PERMISSION, '请求过于频繁，请稍后再试', 429);
    }
  });
}
