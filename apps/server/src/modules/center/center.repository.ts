import type { Db, Tx } from '../../db/db';
import type { CenterPackagesTable, CenterStatesTable } from '../../db/schema';

export type CenterStateRow = CenterStatesTable;
export type CenterPackageRow = CenterPackagesTable;

/** What the centers file says of a center: copied once, the first time the module sees it. */
export interface CenterSeed {
  id: string;
  status: string;
  packages: CenterPackageRow[];
}

/** The rows' own fields in order, so two lists compare by value. */
const samePackages = (a: CenterPackageRow[], b: CenterPackageRow[]) =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i]!;
    return (
      x.id === y.id &&
      x.card_type_id === y.card_type_id &&
      x.name === y.name &&
      Number(x.card_hours) === Number(y.card_hours) &&
      Number(x.price) === Number(y.price) &&
      Number(x.valid_days) === Number(y.valid_days)
    );
  });

/** Thrown inside a transaction to roll back a change that turned out to change nothing. */
class NoChange extends Error {}

/**
 * The only SQL of center states and packages. Each operator change runs in one transaction with the caller's
 * audit entry (`record`), which receives the state read inside that transaction — so the entry's "before" is
 * exactly what the change replaced, even when two operators act at once.
 */
export class CenterRepository {
  constructor(private readonly db: Db) {}

  /**
   * Copies each center the table does not know yet, its packages with it (one transaction per center). A
   * center already there keeps its rows: after the first start the database wins over the file. Replicas
   * starting together are safe: the state row's key lets one insert, and only that one adds the packages.
   */
  async seed(centers: CenterSeed[], now: number): Promise<void> {
    for (const c of centers) {
      await this.db.transaction().execute(async (tx) => {
        const r = await tx
          .insertInto('center_states')
          .values({ center_id: c.id, status: c.status, notice: '', update_time: null, create_time: now })
          .onConflict((oc) => oc.column('center_id').doNothing())
          .executeTakeFirst();
        if (Number(r.numInsertedOrUpdatedRows ?? 0) !== 1 || !c.packages.length) return;
        await tx.insertInto('center_packages').values(c.packages).onConflict((oc) => oc.column('id').doNothing()).execute();
      });
    }
  }

  states(): Promise<CenterStateRow[]> {
    return this.db.selectFrom('center_states').selectAll().execute();
  }

  state(centerId: string): Promise<CenterStateRow | undefined> {
    return this.db.selectFrom('center_states').selectAll().where('center_id', '=', centerId).executeTakeFirst();
  }

  /** Of one center, or of all; in each center's order. */
  packages(centerId?: string): Promise<CenterPackageRow[]> {
    let q = this.db.selectFrom('center_packages').selectAll();
    if (centerId !== undefined) q = q.where('center_id', '=', centerId);
    return q.orderBy('center_id').orderBy('sort').orderBy('id').execute();
  }

  package(id: string): Promise<CenterPackageRow | undefined> {
    return this.db.selectFrom('center_packages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Sets the status and notice; null when they already were these (nothing written, no entry). The update is
   * conditional on the values read, so of two operators acting at once each entry's "before" is true.
   */
  async setState(
    centerId: string,
    to: { status: string; notice: string },
    now: number,
    record: (tx: Tx, before: CenterStateRow) => Promise<void>,
  ): Promise<CenterStateRow | null | 'conflict'> {
    return this.db.transaction().execute(async (tx) => {
      const before = await tx.selectFrom('center_states').selectAll().where('center_id', '=', centerId).executeTakeFirstOrThrow();
      if (before.status === to.status && before.notice === to.notice) return null;
      const r = await tx
        .updateTable('center_states')
        .set({ status: to.status, notice: to.notice, update_time: now })
        .where('center_id', '=', centerId)
        .where('status', '=', before.status)
        .where('notice', '=', before.notice)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return 'conflict';
      await record(tx, before);
      return before;
    });
  }

  /**
   * Replaces the center's packages with `rows`; null when they are these already (rolled back, no entry).
   * The center's state row is written first, which holds concurrent edits of the same center apart.
   */
  async replacePackages(
    centerId: string,
    rows: CenterPackageRow[],
    now: number,
    record: (tx: Tx, before: CenterPackageRow[]) => Promise<void>,
  ): Promise<CenterPackageRow[] | null> {
    try {
      return await this.db.transaction().execute(async (tx) => {
        await tx.updateTable('center_states').set({ update_time: now }).where('center_id', '=', centerId).execute();
        const before = await tx.selectFrom('center_packages').selectAll().where('center_id', '=', centerId).orderBy('sort').orderBy('id').execute();
        if (samePackages(before, rows)) throw new NoChange();
        await tx.deleteFrom('center_packages').where('center_id', '=', centerId).execute();
        if (rows.length) await tx.insertInto('center_packages').values(rows).execute();
        await record(tx, before);
        return before;
      });
    } catch (err) {
      if (err instanceof NoChange) return null;
      throw err;
    }
  }
}
