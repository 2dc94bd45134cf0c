import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { WsEvent } from '@suanli/contracts';

/**
 * Carries live events to whichever gateway process holds the user's sockets. In-process by default;
 * with REDIS_URL every process publishes to and subscribes on one channel, so an event raised in one
 * process reaches a socket held by another.
 */
export interface EventBus {
  publish(userId: string, event: WsEvent): Promise<void>;
  subscribe(handler: (userId: string, event: WsEvent) => void): void;
  close(): Promise<void>;
}

export class InProcessBus implements EventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async publish(userId: string, event: WsEvent) {
    this.emitter.emit('event', userId, event);
  }
  subscribe(handler: (userId: string, event: WsEvent) => void) {
    this.emitter.on('event', handler);
  }
  async close() {
    this.emitter.removeAllListeners();
  }
}

const CHANNEL = 'suanli:events';

export class RedisBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers: ((userId: string, event: WsEvent) => void)[] = [];
  private ready: Promise<unknown>;

  constructor(url: string) {
    this.pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    this.sub = new Redis(url, { lazyConnect: false });
    this.sub.on('message', (_channel, raw: string) => {
      const { userId, event } = JSON.parse(raw) as { userId: string; event: WsEvent };
      for (const h of this.handlers) h(userId, event);
    });
    this.ready = this.sub.subscribe(CHANNEL);
  }

  async publish(userId: string, event: WsEvent) {
    await this.pub.publish(CHANNEL, JSON.stringify({ userId, event }));
  }
  subscribe(handler: (userId: string, event: WsEvent) => void) {
    this.handlers.push(handler);
  }
  /** Resolves once the subscription is live (tests wait on it before publishing). */
  whenReady() {
    return this.ready;
  }
  async close() {
    this.handlers.length = 0;
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}

export function createBus(redisUrl?: string): EventBus {
  return redisUrl ? new RedisBus(redisUrl) : new InProcessBus();
}
