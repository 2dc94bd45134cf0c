import type { Db } from '../../db/db';

/**
 * What other modules may read about a user's use of compute (the resource dashboard): the tasks holding cards
 * now and those that ran in a window. The task module owns the `tasks` table; this read-only repository is
 * the port it hands out for them (`createTaskModule(...).usage`), kept apart from the state engine.
 */
export class TaskUsageRepository {
  constructor(private readonly db: Db) {}

  /** The owner's tasks holding cards now (any family), newest start first. */
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
