import { sql } from 'kysely';
import type { Db, Tx } from '../../db/db';
import type { AuditLogTable } from '../../db/schema';

export type AuditRow = AuditLogTable;

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  startTime?: number;
  endTime?: number;
}

const likePattern = (s: string) => `%${s.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;

/**
 * The only SQL of `audit_log`. There is an insert — which runs only in the transaction of the action it
 * records — and reads; no statement here changes or deletes a row (and the database's triggers refuse one).
 */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  /** One entry, inside the caller's transaction: it commits or rolls back with the action's own writes. */
  async append(tx: Tx, row: AuditRow): Promise<void> {
    await tx.insertInto('audit_log').values(row).execute();
  }

  private filtered(f: AuditFilter) {
    let q = this.db.selectFrom('audit_log');
    if (f.actor) q = q.where(sql<boolean>`lower(actor_name) like ${likePattern(f.actor)} escape '!'`);
    if (f.action) q = q.where('action', '=', f.action);
    if (f.target) {
      const target = f.target;
      q = q.where((eb) => eb.or([eb('target_id', '=', target), sql<boolean>`lower(target_name) like ${likePattern(target)} escape '!'`]));
    }
    if (f.startTime !== undefined) q = q.where('create_time', '>=', f.startTime);
    if (f.endTime !== undefined) q = q.where('create_time', '<', f.endTime);
    return q;
  }

  /** Newest first. */
  async page(f: AuditFilter, offset: number, limit: number): Promise<{ rows: AuditRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.filtered(f).selectAll().orderBy('create_time', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
      this.filtered(f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }
}
