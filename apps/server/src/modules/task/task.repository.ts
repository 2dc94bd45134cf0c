import { sql, type Insertable, type Updateable } from 'kysely';
import type { JobState, TaskKind } from '@suanli/contracts';
import type { Db, InTx } from '../../db/db';
import type { TasksTable } from '../../db/schema';
import { isUniqueViolation } from '../../db/unique';
import { newId } from '../../lib/id';

export type TaskRow = TasksTable;
export interface TaskFilter {
  type?: string;
  state?: JobState;
  keyword?: string;
}

/** States the poller asks the scheduler about (everything between submission and an end). */
export const ACTIVE_STATES: JobState[] = ['SUBMITTING', 'QUEUED', 'STARTING', 'RUNNING', 'STOPPING'];

/**
 * The only place with task SQL. Lists of a user's tasks are scoped by owner and kind; one task is read by id
 * (`get`) and whose it is decided by the access module (task-queries.ts, `owned`).
 */
export class TaskRepository {
  constructor(private readonly db: Db) {}

  /**
   * The task and its first event (with the task's reason: a task waiting for data says why), together.
   * False, and nothing stored, when the owner already has a task with this `client_request_id` (a concurrent
   * request with the same id inserted first).
   */
  async insert(row: Insertable<TasksTable>): Promise<boolean> {
    const reason = row.reason ?? '';
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('tasks').values(row).execute();
        await trx
          .insertInto('task_events')
          .values({ id: newId(row.create_time), task_id: row.id, state: row.state, reason, time: row.create_time })
          .execute();
      });
      return true;
    } catch (err) {
      if (row.client_request_id && isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** The owner's task made by the submission `clientRequestId` (any kind, any age), if any. */
  findByClientRequest(ownerId: string, clientRequestId: string) {
    return this.db.selectFrom('tasks').selectAll().where('owner_id', '=', ownerId).where('client_request_id', '=', clientRequestId).executeTakeFirst();
  }

  /** Frees a submission id from the owner's task made with it at or before `before`, so it may name a new task. */
  async releaseClientRequest(ownerId: string, clientRequestId: string, before: number) {
    await this.db
      .updateTable('tasks')
      .set({ client_request_id: null })
      .where('owner_id', '=', ownerId)
      .where('client_request_id', '=', clientRequestId)
      .where('create_time', '<=', before)
      .execute();
  }

  private filtered(ownerId: string, kind: TaskKind, f: TaskFilter) {
    let q = this.db.selectFrom('tasks').where('owner_id', '=', ownerId).where('kind', '=', kind);
    if (f.type) q = q.where('type', '=', f.type);
    if (f.state) q = q.where('state', '=', f.state);
    // LIKE's wildcards in the keyword are literal: escape them.
    if (f.keyword) q = q.where('name', 'like', `%${f.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    return q;
  }

  async page(ownerId: string, kind: TaskKind, f: TaskFilter, offset: number, limit: number) {
    const [rows, total] = await Promise.all([
      this.filtered(ownerId, kind, f).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      this.filtered(ownerId, kind, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }

  /** Ids and names of the owner's tasks among `ids`, of any kind (a work order's link). */
  namesOwned(ownerId: string, ids: string[]) {
    return this.db.selectFrom('tasks').select(['id', 'name']).where('owner_id', '=', ownerId).where('id', 'in', ids).execute();
  }

  get(id: string) {
    return this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  events(taskId: string) {
    return this.db.selectFrom('task_events').selectAll().where('task_id', '=', taskId).orderBy('id', 'asc').execute();
  }

  /**
   * The poller's set, in one query per poll: a center's tasks not ended yet — CREATED (stored by a gateway that
   * died before it could submit them, or waiting for data) and between submission and an end.
   */
  unended(subCenterId: string) {
    return this.db.selectFrom('tasks').selectAll().where('sub_center_id', '=', subCenterId).where('state', 'in', ['CREATED', ...ACTIVE_STATES]).execute();
  }

  /** True for the one caller that flips the task's expiry warning on (replicas race; one warns). */
  async markExpiryWarned(id: string): Promise<boolean> {
    const r = await this.db.updateTable('tasks').set({ expiry_warned: 1 }).where('id', '=', id).where('expiry_warned', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Queued tasks per card type on a center (placement's "shortest queue"). */
  /**
   * Whether a task not yet ended (created, submitting, queued, running, stopping) mounts `id` — an asset's or
   * a version's id, both unique, quoted inside the task's mounts JSON.
   */
  async unfinishedMounting(id: string): Promise<boolean> {
    const pattern = `%${JSON.stringify(id).replace(/[!%_]/g, (c) => `!${c}`)}%`;
    const row = await this.db
      .selectFrom('tasks')
      .select('id')
      .where('state', 'in', ['CREATED', ...ACTIVE_STATES])
      .where(sql<boolean>`mounts like ${pattern} escape '!'`)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async queuedByCardType(subCenterId: string) {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['card_type_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('sub_center_id', '=', subCenterId)
      .where('state', 'in', ['SUBMITTING', 'QUEUED'])
      .groupBy('card_type_id')
      .execute();
    return new Map(rows.map((r) => [r.card_type_id, Number(r.n)]));
  }

  /**
   * Moves the task from `from` to the patch's state, recording the event, only if it is still in `from`
   * (another replica or request may have moved it first: then nothing changes and false is returned).
   * `alsoIn` runs in the same transaction once the task moved (an operator's audit entry).
   */
  async transition(id: string, from: JobState, patch: Updateable<TasksTable> & { state: JobState; update_time: number }, reason: string, alsoIn?: InTx) {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('tasks').set(patch).where('id', '=', id).where('state', '=', from).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      if (patch.state !== from) {
        await trx.insertInto('task_events').values({ id: newId(patch.update_time), task_id: id, state: patch.state, reason, time: patch.update_time }).execute();
      }
      await alsoIn?.(trx);
      return true;
    });
  }

  /** Changes that are not a state change (pending reason, estimated start, submit attempts), if still in `state`. */
  async touch(id: string, state: JobState, patch: Updateable<TasksTable>) {
    await this.db.updateTable('tasks').set(patch).where('id', '=', id).where('state', '=', state).execute();
  }

  async remove(ownerId: string, id: string) {
    await this.db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom('tasks').where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
      if (Number(r.numDeletedRows) === 1) await trx.deleteFrom('task_events').where('task_id', '=', id).execute();
    });
  }
}
