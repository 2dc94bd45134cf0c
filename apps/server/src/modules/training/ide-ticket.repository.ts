import type { Db } from '../../db/db';
import type { IdeTicketsTable } from '../../db/schema';

/** The only place with SQL on `ide_tickets` (ADR 0014): 打开's one-minute, single-use tickets. */
export class IdeTicketRepository {
  constructor(private readonly db: Db) {}

  /** Stores a ticket (by its hash); expired ones go at the same time, so the table stays small. */
  async add(row: IdeTicketsTable, now: number): Promise<void> {
    await this.db.deleteFrom('ide_tickets').where('expire_time', '<=', now).execute();
    await this.db.insertInto('ide_tickets').values(row).execute();
  }

  /**
   * Takes a live ticket out: the delete is the exchange, so of two requests with the same ticket (two tabs,
   * two gateways, a replay from another client) exactly one gets the row.
   */
  async take(hash: string, now: number): Promise<IdeTicketsTable | undefined> {
    const row = await this.db.deleteFrom('ide_tickets').where('hash', '=', hash).returningAll().executeTakeFirst();
    return row && Number(row.expire_time) > now ? row : undefined;
  }
}
