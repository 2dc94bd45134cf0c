import type { Infra } from '../../context';
import type { AccessService } from '../access/access.service';
import { SessionRepository } from './session.repository';
import { SessionService } from './session.service';

/**
 * Sessions: tokens, idle/absolute expiry, revocation (published on the bus so every gateway closes the
 * revoked sockets), and the validity check long-lived connections re-run (`invalid`). No routes of its own —
 * login and logout are user calls — and built right after the access module: every authenticated route
 * verifies through it, and each principal carries the roles the access module loads.
 */
export function createAuthModule(deps: Pick<Infra, 'db' | 'clock' | 'bus'>, access: Pick<AccessService, 'subject' | 'onRolesChanged'>) {
  return { sessions: new SessionService(new SessionRepository(deps.db), deps.clock, access, deps.bus) };
}
