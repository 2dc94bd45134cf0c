import type { Db } from '../../db/db';
import type { ResourceSamplesTable } from '../../db/schema';

/** The only SQL of resource samples (the caller's task figures come from the task module's usage port). */
export class ResourceRepository {
  constructor(private readonly db: Db) {}

  async insert(rows: ResourceSamplesTable[]) {
    if (rows.length) await this.db.insertInto('resource_samples').values(rows).onConflict((oc) => oc.doNothing()).execute();
  }

  async prune(before: number) {
    await this.db.deleteFrom('resource_samples').where('at', '<', before).execute();
  }

  /** The newest sample of each center (all its card types share one `at`). */
  async latest(): Promise<ResourceSamplesTable[]> {
    const newest = this.db.selectFrom('resource_samples').select(['sub_center_id', (eb) => eb.fn.max('at').as('at')]).groupBy('sub_center_id');
    return this.db
      .selectFrom('resource_samples as s')
      .innerJoin(newest.as('n'), (j) => j.onRef('n.sub_center_id', '=', 's.sub_center_id').onRef('n.at', '=', 's.at'))
      .selectAll('s')
      .execute();
  }

  since(from: number) {
    return this.db.selectFrom('resource_samples').selectAll().where('at', '>=', from).orderBy('at').execute();
  }
}
