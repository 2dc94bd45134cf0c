import type { AppContext } from '../../context';
import { AccessLogRepository } from './access-log.repository';
import { AccessLogService } from './access-log.service';

/**
 * Interactive access records (shell and proxy sessions). Service only: the web shell serves the user's
 * list (and the operators' list of everyone's) under ESHELL_BASE; the develop-task proxy calls `open`/`close` the same way (docs/plan/10.md).
 * `start()` (app.ts, once ready) renews the records this process holds and ends those of stopped gateways.
 */
export function createAccessLogModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'log' | 'config'>, isOperator: (userId: string) => Promise<boolean>) {
  return { service: new AccessLogService(new AccessLogRepository(deps.db), deps.centers, deps.clock, isOperator, deps.log, deps.config.access) };
}
