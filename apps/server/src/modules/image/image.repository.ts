import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/db';
import type { ImageImportsTable } from '../../db/schema';

export type ImportRow = Selectable<ImageImportsTable>;

/**
 * The only SQL of images: registry passwords (hashes) and imports of image archives (each read scoped by its
 * owner). Users (their login names) come from the user module, through the service.
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
