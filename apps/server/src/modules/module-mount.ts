import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { named } from '../lib/named-plugin';

/** A routes plugin as the modules write them (schemas typed by TypeBox). */
type RoutePlugin = FastifyPluginAsyncTypebox;

/**
 * What a module declares to the gateway (docs/adding-a-module.md §7): its route plugins with the base path
 * each is served under, its socket routes (under WS_BASE), and what must run when the app is ready and when
 * it closes. `app.ts` lists the modules once; `mountModules` does the rest in that list's order.
 */
export interface ModuleMount {
  /** Names the module in the log line of a `close` that failed. */
  name: string;
  routes?: ReadonlyArray<{ prefix: string; plugin: RoutePlugin }>;
  /** Socket routes, registered in the sockets' scope under WS_BASE (app.ts). */
  sockets?: readonly RoutePlugin[];
  /** Runs when the app is ready (onReady), in list order: pollers, runners, renewals. */
  start?: () => unknown;
  /** Runs when the app closes (preClose), in reverse list order: a module stops before those it uses. */
  close?: () => unknown;
}

/**
 * The modules' hooks: every `start` in list order once the app is ready, every `close` in reverse list
 * order when it closes (each awaited before the next; a failure is logged and the next still closes), before
 * the database and the bus close (their onClose hook in app.ts runs after every preClose). A failing `start`
 * fails the start. So list a module after the modules it uses: it starts after them and stops before them.
 */
export function registerModuleHooks(app: FastifyInstance, modules: readonly ModuleMount[]): void {
  app.addHook('onReady', async () => {
    for (const m of modules) await m.start?.();
  });
  app.addHook('preClose', async () => {
    for (const m of [...modules].reverse()) {
      // One module failing to stop must not keep the others (and the database) from closing.
      try {
        await m.close?.();
      } catch (err) {
        app.log.error({ err, module: m.name }, 'a module failed to close');
      }
    }
  });
}

/** Every module's routes under its prefix, in list order (the gateway's one route table). */
export async function registerModuleRoutes(app: FastifyInstance, modules: readonly ModuleMount[]): Promise<void> {
  for (const m of modules) for (const r of m.routes ?? []) await app.register(named(r.plugin, `${m.name} ${r.prefix}`), { prefix: r.prefix });
}

/** Every module's socket routes, into the sockets' scope (app.ts registers @fastify/websocket there). */
export async function registerModuleSockets(scope: FastifyInstance, modules: readonly ModuleMount[]): Promise<void> {
  for (const m of modules) for (const s of m.sockets ?? []) await scope.register(named(s, `${m.name} sockets`));
}
