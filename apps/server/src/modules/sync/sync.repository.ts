import { SYNC_FINAL_STATES } from '@suanli/contracts';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/db';
import type { SyncJobsTable } from '../../db/schema';

export type SyncRow = Selectable<SyncJobsTable>;

const ACTIVE = ['QUEUED', 'RUNNING'];

/** The only SQL of cross-center sync: jobs, read by their owner, by grant hash, and the active ones at start. */
export class SyncRepository {
  constructor(private readonly db: Db) {}

  async insert(row: Insertable<SyncJobsTable>) {
    await this.db.insertInto('sync_jobs').values(row).execute();
  }

  find(ownerId: string, id: string) {
    return this.db.selectFrom('sync_jobs').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  byId(id: string) {
    return this.db.selectFrom('sync_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byGrantHash(hash: string) {
    return this.db.selectFrom('sync_jobs').selectAll().where('grant_hash', '=', hash).executeTakeFirst();
  }

  /** Newest first; `active` keeps queued and running ones. */
  async page(ownerId: string, active: boolean, offset: number, limit: number) {
    let q = this.db.selectFrom('sync_jobs').where('owner_id', '=', ownerId);
    if (active) q = q.where('state', 'in', ACTIVE);
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('create_time', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  countActive(ownerId: string) {
    return this.db
      .selectFrom('sync_jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId)
      .where('state', 'in', ACTIVE)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  /** The newest job copying a version into a center (its copy there: ready once one SUCCEEDED). */
  latestVersionJob(versionId: string, centerId: string) {
    return this.db
      .selectFrom('sync_jobs')
      .selectAll()
      .where('version_id', '=', versionId)
      .where('target_center_id', '=', centerId)
      .where('kind', '=', 'version')
      .orderBy((eb) => eb.case().when('state', '=', 'SUCCEEDED').then(0).else(1).end())
      .orderBy('create_time', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  activeIds() {
    return this.db.selectFrom('sync_jobs').select('id').where('state', 'in', ACTIVE).orderBy('create_time').execute();
  }

  /** Ended jobs whose leftovers on the receiver are due for another removal attempt (oldest due first). */
  dueDiscards(now: number, limit = 50) {
    return this.db.selectFrom('sync_jobs').selectAll().where('discard_after', '>', 0).where('discard_after', '<=', now).orderBy('discard_after').limit(limit).execute();
  }

  /**
   * Updates the leftover-removal fields of an ended job that still has leftovers; false when it has none
   * (another replica removed them meanwhile). Nothing else of an ended job changes.
   */
  async updateDiscard(id: string, set: Pick<Updateable<SyncJobsTable>, 'discard_after' | 'grant_hash'>): Promise<boolean> {
    const r = await this.db.updateTable('sync_jobs').set(set).where('id', '=', id).where('state', 'in', [...SYNC_FINAL_STATES]).where('discard_after', '>', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Updates a job that is still active; false when it already ended (a cancel won the race). */
  async updateActive(id: string, set: Updateable<SyncJobsTable>): Promise<boolean> {
    const r = await this.db.updateTable('sync_jobs').set(set).where('id', '=', id).where('state', 'in', ACTIVE).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
