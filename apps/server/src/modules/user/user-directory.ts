import type { UserRepository } from './user.repository';

/** A user as other modules name them: the login name and the display name. */
export interface UserName {
  id: string;
  username: string;
  nickname: string;
}

/** A user with how to reach them (operators' views only). */
export interface UserContact extends UserName {
  phone: string | null;
  email: string | null;
}

/**
 * What other modules may read about accounts (architecture.md, Access: modules read each other's data only
 * through services): names for lists and messages, lookups by username, the account state the access module
 * checks on every session verification. Built before the sessions (user.module.ts), so it takes no service.
 */
export class UserDirectory {
  constructor(private readonly users: UserRepository) {}

  /** `active` | `disabled`, undefined for an unknown id. */
  status(userId: string): Promise<string | undefined> {
    return this.users.statusOf(userId);
  }

  /** How many accounts there are, by status, and how many were created at or after `since` (平台概览). */
  counts(since: number) {
    return this.users.counts(since);
  }

  /** The names of these users by id (unknown ids are absent). */
  async names(ids: readonly string[]): Promise<Map<string, UserName>> {
    const rows = await this.users.namesOf([...ids]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * Names and contact details (phone, email; null when not given) by id, for operators' views (a buyer of
   * an order). Callers decide who may see them; unknown ids are absent.
   */
  async contacts(ids: readonly string[]): Promise<Map<string, UserContact>> {
    const rows = await this.users.contactsOf([...ids]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The login name of one user, `''` for an unknown id. */
  async username(userId: string): Promise<string> {
    return (await this.names([userId])).get(userId)?.username ?? '';
  }

  /** Users by login name, ignoring ASCII case as logins do (unknown names are absent). */
  named(usernames: readonly string[]): Promise<Array<UserName & { status: string }>> {
    return this.users.named([...usernames]);
  }
}
