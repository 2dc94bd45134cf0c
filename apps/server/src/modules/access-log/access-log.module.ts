import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { AccessLogRepository } from './access-log.repository';
import { AccessLogService } from './access-log.service';

/**
 * Interactive access records (shell and proxy sessions). Service only: the web shell serves the user's
 * list (and the operators' list of everyone's) under ESHELL_BASE; the develop-task proxy calls `open`/`close` the same way (docs/plan/10.md).
 * `start()` (app.ts, once ready) renews the records this process holds and ends those of stopped gateways.
 */
export function createAccessLogModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'log' | 'config' | 'access'>) {
  const service = new AccessLogService(new AccessLogRepository(deps.db), deps.centers, deps.clock, deps.access, deps.log, deps.config.access);
  // Its routes are the web shell's (ESHELL_BASE); here only the renewal of this process's open records.
  const mount: ModuleMount = { name: 'access-log', start: () => service.start(), close: () => service.stop() };
  return { service, mount };
}
