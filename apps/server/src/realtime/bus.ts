import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { WsEvent } from '@suanli/contracts';

/**
 * The recipient that means every open socket of every process (a broadcast: the resource samples, which
 * every user sees). No user id is ever `*` (ids are generated), so it travels through `publish` and the
 * Redis channel like any user's event.
 */
export const EVERYONE = '*';

export type BusHandler = (userId: string, event: WsEvent) => void;

/**
 * Control message between gateway processes, never sent to a socket: sessions just revoked, so every
 * process drops its cached verifications of them (SessionService, ADR 0003). One of the three keys.
 */
export type Revocation = { sessionId: string } | { tokenHash: string } | { userId: string; exceptSessionId?: string };
export type RevocationHandler = (r: Revocation) => void;

/**
 * Carries live events to whichever gateway process holds the user's sockets. In-process by default;
 * with REDIS_URL every process publishes to and subscribes on one channel, so an event raised in one
 * process reaches a socket held by another.
 *
 * Delivery is best effort: `publish` never rejects. The event's cause (a message, a task state) is already
 * stored when it is published, and the console re-reads on reconnect, so a lost push costs freshness, never
 * data — while a rejecting publish would make callers retry work that already succeeded.
 */
export interface EventBus {
  publish(userId: string, event: WsEvent): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(handler: BusHandler): () => void;
  /** Tells the *other* processes about a revocation (the caller has handled it locally). Best effort too. */
  publishRevocation(r: Revocation): Promise<void>;
  /** Revocations made by other processes. Returns the unsubscribe function. */
  onRevocation(handler: RevocationHandler): () => void;
  close(): Promise<void>;
}

export type BusErrorReporter = (err: unknown, what: string) => void;

// No logger exists when the bus is built (buildApp makes it before Fastify's plugins); stderr is enough
// for a Redis outage, which also shows up in the rate limiter and health of the process.
const reportToStderr: BusErrorReporter = (err, what) => {
  process.stderr.write(`[bus] ${what}: ${err instanceof Error ? err.message : String(err)}\n`);
};

/** Calls every handler; one throwing handler must not starve the others. */
function dispatch(handlers: Iterable<BusHandler>, userId: string, event: WsEvent, onError: BusErrorReporter) {
  for (const h of handlers) {
    try {
      h(userId, event);
    } catch (err) {
      onError(err, 'handler failed');
    }
  }
}

export class InProcessBus implements EventBus {
  private readonly handlers = new Set<BusHandler>();

  constructor(private readonly onError: BusErrorReporter = reportToStderr) {}

  async publish(userId: string, event: WsEvent) {
    dispatch(this.handlers, userId, event, this.onError);
  }
  subscribe(handler: BusHandler) {
    this.handlers.add(handler);
    return () => void this.handlers.delete(handler);
  }
  /** One process: nobody else to tell. */
  async publishRevocation() {}
  onRevocation() {
    return () => {};
  }
  async close() {
    this.handlers.clear();
  }
}

export const DEFAULT_BUS_CHANNEL = 'suanli:events';

/** On the channel: an event for a user's sockets, or a revocation for the other processes. */
type Envelope =
  | {
      /** The publishing process; it has already delivered locally and skips its own echo. */
      o: string;
      u: string;
      e: WsEvent;
    }
  | { o: string; r: Revocation };

export interface RedisBusOptions {
  /** One channel per deployment; tests use a unique one so parallel runs never see each other's events. */
  channel?: string;
  onError?: BusErrorReporter;
}

export class RedisBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Set<BusHandler>();
  private readonly revocationHandlers = new Set<RevocationHandler>();
  private readonly origin = randomBytes(8).toString('hex');
  private readonly channel: string;
  private readonly onError: BusErrorReporter;
  private readonly ready: Promise<void>;
  private closed = false;

  constructor(url: string, opts: RedisBusOptions = {}) {
    this.channel = opts.channel ?? DEFAULT_BUS_CHANNEL;
    this.onError = opts.onError ?? reportToStderr;
    // A publish waiting on a dead Redis would hold up notify(); fail fast (the push is best effort) and
    // let ioredis keep reconnecting in the background. The subscriber resubscribes on reconnect itself.
    this.pub = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, enableOfflineQueue: true });
    this.sub = new Redis(url, { connectTimeout: 2_000 });
    for (const conn of [this.pub, this.sub]) conn.on('error', (err) => this.closed || this.onError(err, 'redis'));
    this.sub.on('message', (channel: string, raw: string) => {
      if (channel !== this.channel) return;
      let env: Envelope;
      try {
        env = JSON.parse(raw) as Envelope;
      } catch (err) {
        return this.onError(err, 'malformed event');
      }
      if (env.o === this.origin) return;
      if ('r' in env) {
        for (const h of this.revocationHandlers) {
          try {
            h(env.r);
          } catch (err) {
            this.onError(err, 'revocation handler failed');
          }
        }
        return;
      }
      if (typeof env.u !== 'string' || !env.e) return;
      dispatch(this.handlers, env.u, env.e, this.onError);
    });
    this.ready = this.sub.subscribe(this.channel).then(
      () => undefined,
      (err) => this.onError(err, 'subscribe failed'),
    );
  }

  /**
   * Local sockets get the event at once (no Redis round trip, and still during a Redis outage); the other
   * processes get it through the channel.
   */
  async publish(userId: string, event: WsEvent) {
    dispatch(this.handlers, userId, event, this.onError);
    try {
      await this.pub.publish(this.channel, JSON.stringify({ o: this.origin, u: userId, e: event } satisfies Envelope));
    } catch (err) {
      this.onError(err, 'publish failed');
    }
  }

  subscribe(handler: BusHandler) {
    this.handlers.add(handler);
    return () => void this.handlers.delete(handler);
  }

  async publishRevocation(r: Revocation) {
    try {
      await this.pub.publish(this.channel, JSON.stringify({ o: this.origin, r } satisfies Envelope));
    } catch (err) {
      this.onError(err, 'publish failed');
    }
  }

  onRevocation(handler: RevocationHandler) {
    this.revocationHandlers.add(handler);
    return () => void this.revocationHandlers.delete(handler);
  }

  /** Resolves once the subscription is live (tests wait on it before publishing). */
  whenReady() {
    return this.ready;
  }

  async close() {
    this.closed = true;
    this.handlers.clear();
    this.revocationHandlers.clear();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

/**
 * `REDIS_CHANNEL` (config.redisChannel) overrides the channel: processes of one deployment must agree on it, and test runs
 * sharing a Redis use a unique one each.
 */
export function createBus(redisUrl?: string, channel?: string): EventBus {
  return redisUrl ? new RedisBus(redisUrl, { channel }) : new InProcessBus();
}
