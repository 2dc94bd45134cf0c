import type { Infra } from '../../context';
import { SessionRepository } from './session.repository';
import { SessionService } from './session.service';

/**
 * Sessions: tokens, idle/absolute expiry, revocation (published on the bus so every gateway closes the
 * revoked sockets). No routes of its own — login and logout are user calls — and built first: every
 * authenticated route verifies through it.
 */
export function createAuthModule(deps: Pick<Infra, 'db' | 'clock' | 'bus'>) {
  return { sessions: new SessionService(new SessionRepository(deps.db), deps.clock, deps.bus) };
}
