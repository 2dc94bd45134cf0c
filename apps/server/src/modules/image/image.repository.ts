import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, InTx } from '../../db/db';
import type { ImageImportsTable, ImagePublicationsTable } from '../../db/schema';
import { isUniqueViolation } from '../../db/unique';

export type ImportRow = Selectable<ImageImportsTable>;
export type PublicationRow = Selectable<ImagePublicationsTable>;

/**
 * The only SQL of images: registry passwords (hashes), imports of image archives (each read scoped by its
 * owner) and requests to make an image public. Users (their login names) come from the user module, through the service.
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

  /** An import by id, whoever started it: the service asks the access module whether the caller may read it. */
  findImport(id: string) {
    return this.db.selectFrom('image_imports').selectAll().where('id', '=', id).executeTakeFirst();
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

  // ---- requests to make an image public ----------------------------------------------------------------

  /** False when the source already has a pending request (the partial unique index decides). */
  async insertPublication(row: Insertable<ImagePublicationsTable>): Promise<boolean> {
    try {
      await this.db.insertInto('image_publications').values(row).execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  publicationsOf(ownerId: string) {
    return this.db.selectFrom('image_publications').selectAll().where('owner_id', '=', ownerId).orderBy('create_time', 'desc').limit(200).execute();
  }

  pendingPublications() {
    return this.db.selectFrom('image_publications').selectAll().where('state', '=', 'pending').orderBy('create_time').limit(200).execute();
  }

  findPublication(id: string) {
    return this.db.selectFrom('image_publications').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The approved public images (newest first), for the task form's catalogue. */
  approvedPublications() {
    return this.db.selectFrom('image_publications').selectAll().where('state', '=', 'approved').orderBy('review_time', 'desc').execute();
  }

  approvedTarget(target: string) {
    return this.db.selectFrom('image_publications').selectAll().where('state', '=', 'approved').where('target', '=', target).executeTakeFirst();
  }

  /**
   * An operator's decision: pending → `approved` / `rejected`, and `alsoIn` (the audit entry) in the same
   * transaction; false, with nothing written, when the request was no longer pending.
   */
  decidePublication(id: string, set: Updateable<ImagePublicationsTable>, alsoIn: InTx): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.updateTable('image_publications').set(set).where('id', '=', id).where('state', '=', 'pending').executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await alsoIn(tx);
      return true;
    });
  }
}
