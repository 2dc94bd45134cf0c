import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, InTx } from '../../db/db';
import type { Database } from '../../db/schema';
import { prepare } from '../../db/prepared';
import { isUniqueViolation } from '../../db/unique';

export type AccountField = 'username' | 'phone' | 'email';

const USER_COLUMNS = ['id', 'username', 'nickname', 'phone', 'email', 'password_hash', 'head_image', 'status', 'create_time'] as const;
/** What operators see of an account: everything but the password hash. */
const ADMIN_COLUMNS = ['id', 'username', 'nickname', 'phone', 'email', 'head_image', 'status', 'create_time'] as const;

/** ASCII letters folded as SQL `lower()` folds the ASCII-only stored usernames. */
const foldName = (name: string) => name.replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * Usernames compare case-insensitively, through the expression of their unique index (migration 0004);
 * only ASCII letters are folded, exactly as SQL `lower()` folds the ASCII-only stored names.
 */
function matches(field: AccountField, value: string) {
  return (eb: ExpressionBuilder<Database, 'users'>) =>
    field === 'username'
      ? eb(sql<string>`lower(${eb.ref('username')})`, '=', foldName(value))
      : eb(field, '=', value);
}

export class UserRepository {
  /** Runs with every session verification that misses the cache: compiled once (db/prepared.ts). */
  private readonly statusById;

  constructor(private readonly db: Db) {
    this.statusById = prepare(db, (db, a: { id: string }) => db.selectFrom('users').select('status').where('id', '=', a.id));
  }

  async statusOf(id: string): Promise<string | undefined> {
    return (await this.statusById({ id }))[0]?.status;
  }

  /** Accounts by status, and those created at or after `since` (平台概览). */
  async counts(since: number): Promise<{ total: number; active: number; disabled: number; recent: number }> {
    const [byStatus, recent] = await Promise.all([
      this.db.selectFrom('users').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute(),
      this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('create_time', '>=', since).executeTakeFirstOrThrow(),
    ]);
    // PostgreSQL answers counts as strings.
    const of = (status: string) => byStatus.filter((r) => r.status === status).reduce((s, r) => s + Number(r.n), 0);
    return { total: byStatus.reduce((s, r) => s + Number(r.n), 0), active: of('active'), disabled: of('disabled'), recent: Number(recent.n) };
  }

  /** Usernames and nicknames of these users (those that exist). */
  namesOf(ids: string[]) {
    if (!ids.length) return Promise.resolve([]);
    return this.db.selectFrom('users').select(['id', 'username', 'nickname']).where('id', 'in', [...new Set(ids)]).execute();
  }

  /** Names and contact details (phone, email) by id: what operators see of a buyer. */
  contactsOf(ids: string[]) {
    if (!ids.length) return Promise.resolve([]);
    return this.db.selectFrom('users').select(['id', 'username', 'nickname', 'phone', 'email']).where('id', 'in', [...new Set(ids)]).execute();
  }

  /** Users by name, ignoring ASCII case (as logins do). */
  named(usernames: string[]) {
    const folded = [...new Set(usernames.map(foldName))];
    if (!folded.length) return Promise.resolve([]);
    return this.db
      .selectFrom('users')
      .select(['id', 'username', 'nickname', 'status'])
      .where((eb) => eb(sql<string>`lower(${eb.ref('username')})`, 'in', folded))
      .execute();
  }

  findById(id: string) {
    return this.db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** One account as operators see it (no password hash). */
  findForAdmin(id: string) {
    return this.db.selectFrom('users').select(ADMIN_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findBy(field: AccountField, value: string) {
    return this.db.selectFrom('users').select(USER_COLUMNS).where(matches(field, value)).executeTakeFirst();
  }

  async exists(field: AccountField, value: string): Promise<boolean> {
    const row = await this.db.selectFrom('users').select('id').where(matches(field, value)).executeTakeFirst();
    return row !== undefined;
  }

  /** False when the username, phone or email was taken by a concurrent registration. */
  async insert(row: { id: string; username: string; nickname: string; phone: string | null; email: string | null; passwordHash: string; now: number }) {
    try {
      await this.db
        .insertInto('users')
        .values({
          id: row.id,
          username: row.username,
          nickname: row.nickname,
          phone: row.phone,
          email: row.email,
          password_hash: row.passwordHash,
          head_image: null,
          status: 'active',
          create_time: row.now,
          update_time: row.now,
        })
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** False when the new phone/email belongs to someone else by now (unique index). */
  async update(id: string, now: number, set: { password_hash?: string; phone?: string; email?: string; nickname?: string; head_image?: string }) {
    try {
      await this.db
        .updateTable('users')
        .set({ ...set, update_time: now })
        .where('id', '=', id)
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** Active users whose username or nickname contains the keyword (case-insensitive), oldest first. */
  async page(keyword: string | undefined, offset: number, limit: number) {
    let q = this.db.selectFrom('users').where('status', '=', 'active');
    if (keyword) {
      const pattern = `%${keyword.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      q = q.where((eb) =>
        eb.or([
          sql<boolean>`lower(${eb.ref('username')}) like ${pattern} escape '!'`,
          sql<boolean>`lower(${eb.ref('nickname')}) like ${pattern} escape '!'`,
        ]),
      );
    }
    const [rows, total] = await Promise.all([
      q.select(['id', 'username', 'nickname', 'head_image']).orderBy('create_time').orderBy('id').offset(offset).limit(limit).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /**
   * 运营管理 › 用户: accounts whose username, nickname, phone or e-mail contains the keyword (ASCII case
   * ignored), optionally of one status; newest first.
   */
  async adminPage(f: { keyword?: string; status?: string }, offset: number, limit: number) {
    let q = this.db.selectFrom('users');
    if (f.status) q = q.where('status', '=', f.status);
    if (f.keyword) {
      const pattern = `%${f.keyword.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      q = q.where((eb) =>
        eb.or(
          (['username', 'nickname', 'phone', 'email'] as const).map((col) => sql<boolean>`lower(coalesce(${eb.ref(col)}, '')) like ${pattern} escape '!'`),
        ),
      );
    }
    const [rows, total] = await Promise.all([
      q.select(ADMIN_COLUMNS).orderBy('create_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /**
   * Moves the account from `from` to `to` and runs `alsoIn` (the operator's audit entry) in the same
   * transaction. False, with nothing written, when the account is not in `from` (any more).
   */
  async setStatus(id: string, from: string, to: string, now: number, alsoIn: InTx): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.updateTable('users').set({ status: to, update_time: now }).where('id', '=', id).where('status', '=', from).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await alsoIn(tx);
      return true;
    });
  }
}
