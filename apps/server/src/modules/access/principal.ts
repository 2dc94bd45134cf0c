import type { Role } from '@suanli/contracts';

/**
 * The caller of a request, as the session verification resolved it: who (`userId`), through which session,
 * and the platform roles the account holds (`user` always, `operator` when granted — read with the session,
 * so a role check costs no query). Team roles are not: they change often and must count at once, so the
 * resource carries the caller's role in its team (access.policy.ts, `Resource.team`).
 */
export interface Principal {
  readonly userId: string;
  readonly sessionId: string;
  readonly roles: readonly Role[];
}

/** Who a decision is about: a principal, or an account acting without a session (the registry's login). */
export type Caller = Pick<Principal, 'userId' | 'roles'>;

/** A principal for work the platform does on a user's behalf outside a request (the demo seed). */
export function systemPrincipal(userId: string, roles: readonly Role[] = ['user']): Principal {
  return Object.freeze({ userId, sessionId: 'system', roles });
}
