import { ESHELL_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { socketGuards } from '../../realtime/ws';
import type { AccessLogService } from '../access-log/access-log.service';
import { DEFAULT_SHELL_IDLE_MS, DEFAULT_SHELL_MAX_SESSIONS, EshellService, type ShellKeySource } from './eshell.service';
import { eshellRoutes } from './eshell.routes';
import { eshellSocketRoutes } from './eshell.socket';

/**
 * The web shell: REST calls under ESHELL_BASE (centers offering a shell, the caller's session records) and
 * the shell socket under WS_BASE (registered in the sockets' scope, app.ts). `keys` is the key pairs
 * module's seam (per-user platform key for SSH); without it only the local shell of the embedded default
 * is offered — and that only when the deployment enables it (`shell.local`, LOCAL_SHELL=true).
 */
export function createEshellModule(
  deps: Pick<AppContext, 'centers' | 'config' | 'sessions' | 'clusterAccounts' | 'log'>,
  accessLog: AccessLogService,
  guards: ReturnType<typeof socketGuards>,
  keys: ShellKeySource | undefined,
) {
  const service = new EshellService(deps.centers, deps.clusterAccounts, accessLog, keys, (ids) => deps.sessions.invalid(ids), {
    idleTimeoutMs: deps.config.shell?.idleTimeoutMs ?? DEFAULT_SHELL_IDLE_MS,
    maxSessionsPerUser: deps.config.shell?.maxSessionsPerUser ?? DEFAULT_SHELL_MAX_SESSIONS,
    localShell: deps.config.shell?.local === true,
  });
  // Revocations made here or heard on the bus hang the shells of those sessions up at once.
  service.followRevocations((listener) => deps.sessions.onRevoked(listener));
  const mount: ModuleMount = {
    name: 'eshell',
    routes: [{ prefix: ESHELL_BASE, plugin: eshellRoutes(service, accessLog) }],
    sockets: [eshellSocketRoutes(service, guards)],
    close: () => service.close(),
  };
  return { service, mount };
}
