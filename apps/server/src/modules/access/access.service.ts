import type { Role } from '@suanli/contracts';
import type { Tx } from '../../db/db';
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

/** A role change as it happened: the account's roles before and after (`user` included). */
export interface RoleChange {
  before: Role[];
  after: Role[];
}
/** Written in the transaction of a role change, only when it changed something (the audit entry). */
export type OnRoleChange = (tx: Tx, change: RoleChange) => Promise<void>;

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

  /** Each account's roles, for lists of accounts (one query). */
  async rolesOfMany(userIds: readonly string[]): Promise<Map<string, Role[]>> {
    const granted = new Map<string, string[]>();
    for (const r of await this.roles.rolesOfMany([...userIds])) granted.set(r.user_id, [...(granted.get(r.user_id) ?? []), r.role]);
    return new Map(userIds.map((id) => [id, rolesFrom(granted.get(id) ?? [])]));
  }

  /** The accounts holding a granted role (operators: who hears of new work orders, who the command lists), earliest first. */
  async holders(role: Role): Promise<{ userId: string; since: number }[]> {
    return (await this.roles.holders(role)).map((r) => ({ userId: r.user_id, since: Number(r.create_time) }));
  }

  /**
   * Grants a role; `audit` runs in the same transaction when the account did not hold it yet. Returns the
   * change, or null when there was none (already held, or not a grantable role).
   */
  async grant(userId: string, role: Role, audit?: OnRoleChange): Promise<RoleChange | null> {
    if (!GRANTABLE.includes(role)) return null;
    return this.change(userId, role, true, audit);
  }

  /** Takes a role away; `audit` as for `grant`. Null when the account did not hold it. */
  async revoke(userId: string, role: Role, audit?: OnRoleChange): Promise<RoleChange | null> {
    return this.change(userId, role, false, audit);
  }

  private async change(userId: string, role: Role, grant: boolean, audit?: OnRoleChange): Promise<RoleChange | null> {
    const r = await this.roles.change(userId, role, grant, this.clock(), audit && ((tx, before, after) => audit(tx, { before: rolesFrom(before), after: rolesFrom(after) })));
    if (r) this.changed(userId);
    return r && { before: rolesFrom(r.before), after: rolesFrom(r.after) };
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
