import type { Db } from '../../db/db';
import type { ResourceSamplesTable } from '../../db/schema';

/** The only SQL of resource samples, plus the read-only task figures the dashboard shows the owner. */
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

  /** The owner's tasks holding cards now (any family). */
  running(ownerId: string) {
    return this.db
      .selectFrom('tasks')
      .select(['id', 'kind', 'type', 'name', 'state', 'sub_center_id', 'card_type_id', 'card_num', 'node_num', 'start_time'])
      .where('owner_id', '=', ownerId)
      .where('state', 'in', ['STARTING', 'RUNNING', 'STOPPING'])
      .orderBy('start_time', 'desc')
      .execute();
  }

  /** The owner's tasks that ran at some point after `from` (for card-hours per day). */
  ranSince(ownerId: string, from: number) {
    return this.db
      .selectFrom('tasks')
      .select(['card_num', 'node_num', 'start_time', 'end_time'])
      .where('owner_id', '=', ownerId)
      .where('start_time', 'is not', null)
      .where((eb) => eb.or([eb('end_time', 'is', null), eb('end_time', '>=', from)]))
      .execute();
  }
}
