import type { Role } from '@suanli/contracts';
import { forbidden, notFound } from '../../errors';
import { allowed, owns, type Action, type Resource } from './access.policy';
import type { Caller } from './principal';
import type { RoleRepository } from './role.repository';

/** What the session verification carries onto a principal about its account. */
export interface Subject {
  /** False for a disabled account: its sessions are refused (a session whose user row is gone still counts as before). */
  active: boolean;
  roles: readonly Role[];
}

/** The account state the access module needs from the user module (UserDirectory.status). */
export type AccountStatus = (userId: string) => Promise<string | undefined>;

const GRANTABLE: readonly Role[] = ['operator'];

/**
 * The one place that answers "may this principal do this to this resource" (architecture.md, Access). Roles
 * come with the principal (loaded by `subject` when the session is verified), so every check here is
 * arithmetic on the principal and the resource the service already read — no query. Route-level role
 * requirements (`config: { role }`) are checked by the auth plugin through `hasRole`.
 */
export class AccessService {
  private readonly roleListeners = new Set<(userId: string) => void>();

  constructor(
    private readonly roles: RoleRepository,
    private readonly status: AccountStatus,
    private readonly clock: () => number,
  ) {}

  // ---- decisions --------------------------------------------------------------------------------------

  can(p: Caller, action: Action, resource?: Resource): boolean {
    return allowed(p, action, resource);
  }

  /** Throws 1020 (no permission) unless `p` may do `action` (to `resource`). */
  require(p: Caller, action: Action, resource?: Resource): void {
    if (!allowed(p, action, resource)) throw forbidden();
  }

  /**
   * A row looked up by id: returns it when `p` may do `action` to it; a missing row and one the caller may
   * not touch both answer 1205 naming `what` — never revealing that it exists.
   */
  found<T>(p: Caller, action: Action, row: T | undefined, resourceOf: (row: T) => Resource, what: string): T {
    if (row === undefined || !allowed(p, action, resourceOf(row))) throw notFound(what);
    return row;
  }

  /** Whether the resource is the caller's own (lists' "mine", the owner's side of a conversation). */
  owns(p: Caller, resource: Pick<Resource, 'ownerId'>): boolean {
    return owns(p, resource);
  }

  /** The route-level requirement (`config: { role }`), checked by the auth plugin before the handler. */
  hasRole(p: Caller, role: Role): boolean {
    return p.roles.includes(role);
  }

  // ---- roles ------------------------------------------------------------------------------------------

  /** The account's state as the session verification carries it on the principal. */
  async subject(userId: string): Promise<Subject> {
    const [status, granted] = await Promise.all([this.status(userId), this.roles.rolesOf(userId)]);
    return { active: status !== 'disabled', roles: rolesFrom(granted) };
  }

  /** `user` plus the granted roles (UserInfo.roles of an account that is not the caller's session). */
  async rolesOf(userId: string): Promise<Role[]> {
    return rolesFrom(await this.roles.rolesOf(userId));
  }

  async grant(userId: string, role: Role): Promise<void> {
    if (!GRANTABLE.includes(role)) return;
    await this.roles.grant(userId, role, this.clock());
    this.changed(userId);
  }

  async revoke(userId: string, role: Role): Promise<void> {
    await this.roles.revoke(userId, role);
    this.changed(userId);
  }

  /**
   * Called after a user's roles changed here (the session service drops its cached principals of that user,
   * so the next request carries the new roles). Other gateway processes see the change when their cached
   * verification ends (SESSION_CACHE_MS). Returns the unsubscribe function.
   */
  onRolesChanged(listener: (userId: string) => void): () => void {
    this.roleListeners.add(listener);
    return () => void this.roleListeners.delete(listener);
  }

  private changed(userId: string) {
    for (const l of this.roleListeners) l(userId);
  }
}

/** Every account is a `user`; rows add the granted roles (unknown names in the table are ignored). */
function rolesFrom(granted: string[]): Role[] {
  return ['user', ...GRANTABLE.filter((r) => granted.includes(r))];
}
