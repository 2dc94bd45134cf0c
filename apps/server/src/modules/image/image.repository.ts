import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/db';
import type { ImageImportsTable } from '../../db/schema';

export type ImportRow = Selectable<ImageImportsTable>;

/**
 * The only SQL of images: registry passwords (hashes), users looked up by their registry login name, and
 * imports of image archives (each read scoped by its owner).
 */
export class ImageRepository {
  constructor(private readonly db: Db) {}

  credential(userId: string) {
    return this.db.selectFrom('registry_credentials').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  async setCredential(userId: string, passwordHash: string, at: number) {
    await this.db
      .insertInto('registry_credentials')
      .values({ user_id: userId, password_hash: passwordHash, create_time: at })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: passwordHash, create_time: at }))
      .execute();
  }

  /** The user and their registry password hash by username, ignoring ASCII case (as logins do). */
  byUsername(username: string) {
    return this.db
      .selectFrom('users')
      .leftJoin('registry_credentials', 'registry_credentials.user_id', 'users.id')
      .select(['users.id', 'users.username', 'users.status', 'users.roles', 'registry_credentials.password_hash'])
      .where((eb) => eb(sql<string>`lower(${eb.ref('users.username')})`, '=', username.replace(/[A-Z]/g, (c) => c.toLowerCase())))
      .executeTakeFirst();
  }

  username(userId: string) {
    return this.db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
  }

  async insertImport(row: Insertable<ImageImportsTable>) {
    await this.db.insertInto('image_imports').values(row).execute();
  }

  findImport(ownerId: string, id: string) {
    return this.db.selectFrom('image_imports').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  runningImportsOf(ownerId: string) {
    return this.db
      .selectFrom('image_imports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId)
      .where('state', '=', 'running')
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  async updateImport(id: string, set: Updateable<ImageImportsTable>) {
    await this.db.updateTable('image_imports').set(set).where('id', '=', id).execute();
  }

  /** Imports a stopped gateway left running: failed (the registry never got their tag). */
  async failRunningImports(message: string, at: number) {
    await this.db.updateTable('image_imports').set({ state: 'failed', message, update_time: at }).where('state', '=', 'running').execute();
  }
}
