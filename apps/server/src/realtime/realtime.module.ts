import type { AppContext } from '../context';
import type { ModuleMount } from '../modules/module-mount';
import { SocketHub } from './socket-hub';
import { socketGuards, wsRoutes } from './ws';

/**
 * Live updates: the socket hub of this process (fed by the bus every module publishes to through `notify`)
 * and the socket route under WS_BASE. buildApp closes the hub before the server stops.
 */
export function createRealtimeModule(deps: Pick<AppContext, 'bus' | 'sessions' | 'config' | 'log'>) {
  const hub = new SocketHub(deps.bus, (ids) => deps.sessions.invalid(ids), deps.log);
  // Revocations made here or heard on the bus close the sockets of those sessions at once (ADR 0005).
  hub.followRevocations((listener) => deps.sessions.onRevoked(listener));
  const allowedOrigins = new Set(deps.config.allowedOrigins.map((o) => o.replace(/\/+$/, '')));
  // The handshake rules (Origin, token) other sockets under WS_BASE share (the web shell).
  const mount: ModuleMount = { name: 'realtime', sockets: [wsRoutes(hub, deps.sessions, allowedOrigins)], close: () => hub.close() };
  return { hub, guards: socketGuards(deps.sessions, allowedOrigins), mount };
}
