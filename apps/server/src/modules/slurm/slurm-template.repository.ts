import type { Insertable } from 'kysely';
import type { Db } from '../../db/db';
import type { SlurmTemplatesTable } from '../../db/schema';

export type SlurmTemplateRow = SlurmTemplatesTable;
export interface TemplateFilter {
  keyword?: string;
  category?: string;
}

/** The only place with template SQL: users' own templates (platform ones come from config). Scoped by owner. */
export class SlurmTemplateRepository {
  constructor(private readonly db: Db) {}

  private filtered(ownerId: string, f: TemplateFilter) {
    let q = this.db.selectFrom('slurm_templates').where('owner_id', '=', ownerId);
    if (f.category) q = q.where('category', '=', f.category);
    // LIKE's wildcards in the keyword are literal: escape them.
    if (f.keyword) q = q.where('name', 'like', `%${f.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    return q;
  }

  count(ownerId: string, f: TemplateFilter): Promise<number> {
    return this.filtered(ownerId, f)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  /** Newest first. */
  list(ownerId: string, f: TemplateFilter, offset: number, limit: number) {
    return this.filtered(ownerId, f).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
  }

  /** The caller's template, or undefined (someone else's is indistinguishable from a missing one). */
  findOwned(ownerId: string, id: string) {
    return this.db.selectFrom('slurm_templates').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  async insert(row: Insertable<SlurmTemplatesTable>) {
    await this.db.insertInto('slurm_templates').values(row).execute();
  }

  async update(ownerId: string, id: string, patch: Omit<SlurmTemplatesTable, 'id' | 'owner_id' | 'create_time'>): Promise<boolean> {
    const r = await this.db.updateTable('slurm_templates').set(patch).where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async remove(ownerId: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('slurm_templates').where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }
}
