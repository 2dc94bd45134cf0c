import type { Infra } from '../../context';
import { AccessService, type AccountStatus } from './access.service';
import { RoleRepository } from './role.repository';

/**
 * Access (architecture.md, Access): roles as rows, and the one policy every service asks — ownership, shares,
 * platform roles, team roles (carried by the resource). No routes. Built before the session service, which loads each principal's
 * roles through it; `status` is the user module's account state (UserDirectory), so that a disabled account's
 * sessions are refused.
 */
export function createAccessModule(deps: Pick<Infra, 'db' | 'clock'>, status: AccountStatus) {
  return { service: new AccessService(new RoleRepository(deps.db), status, deps.clock) };
}
