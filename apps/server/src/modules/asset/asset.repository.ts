import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { AssetKind } from '@suanli/contracts';
import type { Db, InTx } from '../../db/db';
import type { AssetsTable, AssetVersionsTable } from '../../db/schema';
import { isUniqueViolation } from '../../db/unique';

export type AssetRow = Selectable<AssetsTable>;
export type VersionRow = Selectable<AssetVersionsTable>;

const likePattern = (s: string) => `%${s.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;

/**
 * The only SQL of datasets and models, their versions and shares. Who may read or change one asset is the
 * access module's decision (the service asks it with the row and the caller's share); lists are scoped here.
 * Owners' names come from the user module, through the service.
 */
export class AssetRepository {
  constructor(private readonly db: Db) {}

  private base() {
    return this.db.selectFrom('assets').selectAll('assets');
  }

  /** The asset with whether it is shared with `userId` (what the access module needs to decide), in one read. */
  async findWithShare(kind: AssetKind, id: string, userId: string): Promise<(AssetRow & { shared: boolean }) | undefined> {
    const row = await this.base()
      .select((eb) =>
        eb.exists(eb.selectFrom('asset_shares').select('asset_shares.asset_id').whereRef('asset_shares.asset_id', '=', 'assets.id').where('asset_shares.user_id', '=', userId)).as('shared'),
      )
      .where('assets.id', '=', id)
      .where('assets.kind', '=', kind)
      .executeTakeFirst();
    // SQLite answers 0/1, PostgreSQL a boolean.
    return row && { ...row, shared: Boolean(Number(row.shared)) };
  }

  /** Any asset of the kind, whoever owns it (operator actions and the seed only). */
  findAny(kind: AssetKind, id: string): Promise<AssetRow | undefined> {
    return this.base().where('assets.id', '=', id).where('assets.kind', '=', kind).executeTakeFirst();
  }

  /** An asset of either kind by id: who owns it and whether it is public (its folders' access, ADR 0013). */
  findById(id: string) {
    return this.db.selectFrom('assets').select(['id', 'owner_id', 'visibility']).where('id', '=', id).executeTakeFirst();
  }

  /** Assets whose owners asked for publication, oldest request first (at most 200). */
  pendingPublication(kind: AssetKind): Promise<AssetRow[]> {
    return this.base().where('assets.kind', '=', kind).where('assets.publish_state', '=', 'pending').orderBy('assets.update_time').limit(200).execute();
  }

  /**
   * A page of the caller's own assets, or of those shared with them — directly or with one of `teamIds`, the
   * teams the caller is a member of now (the team module's answer) — or of the public hall (newest change first).
   */
  async page(kind: AssetKind, userId: string, scope: 'own' | 'shared' | 'public', q: { keyword?: string; tag?: string; offset: number; limit: number; teamIds?: readonly string[] }) {
    let query = this.base().where('assets.kind', '=', kind);
    query =
      scope === 'own'
        ? query.where('assets.owner_id', '=', userId)
        : scope === 'public'
          ? query.where('assets.visibility', '=', 'public')
          : query.where((eb) =>
              eb.or([
                eb.exists(eb.selectFrom('asset_shares').select('asset_shares.asset_id').whereRef('asset_shares.asset_id', '=', 'assets.id').where('asset_shares.user_id', '=', userId)),
                // A team's share is not the owner's own asset in their 共享 list (they own it already).
                ...(q.teamIds?.length
                  ? [
                      eb.and([
                        eb('assets.owner_id', '!=', userId),
                        eb.exists(eb.selectFrom('asset_team_shares').select('asset_team_shares.asset_id').whereRef('asset_team_shares.asset_id', '=', 'assets.id').where('asset_team_shares.team_id', 'in', [...q.teamIds])),
                      ]),
                    ]
                  : []),
              ]),
            );
    if (q.keyword) {
      const pattern = likePattern(q.keyword);
      query = query.where((eb) =>
        eb.or([sql<boolean>`lower(${eb.ref('assets.name')}) like ${pattern} escape '!'`, sql<boolean>`lower(${eb.ref('assets.description')}) like ${pattern} escape '!'`]),
      );
    }
    // Tags are a JSON array of strings: `"tag"` with its quotes matches one element exactly.
    if (q.tag) query = query.where('assets.tags', 'like', `%${JSON.stringify(q.tag).replace(/[!%_]/g, (c) => `!${c}`)}%`);
    const total = await query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
    const list = await query.orderBy('assets.update_time', 'desc').orderBy('assets.id', 'desc').offset(q.offset).limit(q.limit).execute();
    return { list, total };
  }

  findOwnedByName(ownerId: string, kind: AssetKind, name: string) {
    return this.db.selectFrom('assets').select('id').where('owner_id', '=', ownerId).where('kind', '=', kind).where('name', '=', name).executeTakeFirst();
  }

  /** False when the owner already has an asset of this kind with this name (the unique index decides). */
  async insert(row: Insertable<AssetsTable>): Promise<boolean> {
    await this.db.insertInto('assets').values(row).onConflict((oc) => oc.columns(['owner_id', 'kind', 'name']).doNothing()).execute();
    return (await this.db.selectFrom('assets').select('id').where('id', '=', row.id).executeTakeFirst()) !== undefined;
  }

  /**
   * An operator's decision on a publication request: pending → `set`, and `alsoIn` (the audit entry) in the
   * same transaction; false, with nothing written, when the request was no longer pending.
   */
  reviewPublication(kind: AssetKind, id: string, set: Updateable<AssetsTable>, alsoIn: InTx): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.updateTable('assets').set(set).where('id', '=', id).where('kind', '=', kind).where('publish_state', '=', 'pending').executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await alsoIn(tx);
      return true;
    });
  }

  /** False on a name clash with another of the owner's assets. */
  async update(ownerId: string, id: string, set: Updateable<AssetsTable>): Promise<boolean> {
    try {
      await this.db.updateTable('assets').set(set).where('id', '=', id).where('owner_id', '=', ownerId).execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async remove(ownerId: string, id: string) {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('asset_shares').where('asset_id', '=', id).execute();
      await trx.deleteFrom('asset_team_shares').where('asset_id', '=', id).execute();
      await trx.deleteFrom('asset_versions').where('asset_id', '=', id).execute();
      await trx.deleteFrom('assets').where('id', '=', id).where('owner_id', '=', ownerId).execute();
    });
  }

  countOfOwner(ownerId: string, kind: AssetKind) {
    return this.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId)
      .where('kind', '=', kind)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  /**
   * Ready versions of the user's own assets and of those shared with (or added by) them or with one of
   * `teamIds` (the caller's teams now), newest first.
   */
  mountable(kind: AssetKind, userId: string, subCenterId?: string, teamIds: readonly string[] = []) {
    let q = this.db
      .selectFrom('asset_versions')
      .innerJoin('assets', 'assets.id', 'asset_versions.asset_id')
      .select([
        'assets.id as asset_id',
        'assets.name as asset_name',
        'assets.owner_id',
        'asset_versions.id as version_id',
        'asset_versions.version',
        'asset_versions.note',
        'asset_versions.sub_center_id',
        'asset_versions.size_bytes',
      ])
      .where('assets.kind', '=', kind)
      .where('asset_versions.state', '=', 'ready')
      .where((eb) =>
        eb.or([
          eb('assets.owner_id', '=', userId),
          eb.exists(eb.selectFrom('asset_shares').select('asset_shares.asset_id').whereRef('asset_shares.asset_id', '=', 'assets.id').where('asset_shares.user_id', '=', userId)),
          ...(teamIds.length
            ? [eb.exists(eb.selectFrom('asset_team_shares').select('asset_team_shares.asset_id').whereRef('asset_team_shares.asset_id', '=', 'assets.id').where('asset_team_shares.team_id', 'in', [...teamIds]))]
            : []),
        ]),
      );
    if (subCenterId) q = q.where('asset_versions.sub_center_id', '=', subCenterId);
    return q.orderBy('assets.update_time', 'desc').orderBy('asset_versions.version', 'desc').limit(500).execute();
  }

  // ---- versions ---------------------------------------------------------------------------------------

  versionsOf(assetIds: string[]): Promise<VersionRow[]> {
    if (!assetIds.length) return Promise.resolve([]);
    return this.db.selectFrom('asset_versions').selectAll().where('asset_id', 'in', assetIds).orderBy('version', 'desc').execute();
  }

  findVersion(assetId: string, versionId: string) {
    return this.db.selectFrom('asset_versions').selectAll().where('asset_id', '=', assetId).where('id', '=', versionId).executeTakeFirst();
  }

  /**
   * Adds the next version number (max + 1). Two concurrent adds may pick the same number: the unique index
   * refuses the second, which retries.
   */
  async insertNextVersion(row: Omit<Insertable<AssetVersionsTable>, 'version'>): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const max = await this.db
        .selectFrom('asset_versions')
        .select((eb) => eb.fn.max('version').as('v'))
        .where('asset_id', '=', row.asset_id)
        .executeTakeFirst();
      const version = Number(max?.v ?? 0) + 1;
      try {
        await this.db.insertInto('asset_versions').values({ ...row, version }).execute();
        return version;
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= 5) throw e;
      }
    }
  }

  async settleVersion(id: string, set: Updateable<AssetVersionsTable>) {
    await this.db.updateTable('asset_versions').set(set).where('id', '=', id).execute();
  }

  async removeVersion(assetId: string, versionId: string) {
    await this.db.deleteFrom('asset_versions').where('asset_id', '=', assetId).where('id', '=', versionId).execute();
  }

  /** Versions left `creating` by a gateway that stopped mid-copy. */
  unfinishedVersions() {
    return this.db
      .selectFrom('asset_versions')
      .innerJoin('assets', 'assets.id', 'asset_versions.asset_id')
      .select(['asset_versions.id', 'asset_versions.asset_id', 'asset_versions.sub_center_id'])
      .where('asset_versions.state', '=', 'creating')
      .execute();
  }

  async touch(id: string, at: number) {
    await this.db.updateTable('assets').set({ update_time: at }).where('id', '=', id).execute();
  }

  // ---- shares -----------------------------------------------------------------------------------------

  async isSharedWith(assetId: string, userId: string): Promise<boolean> {
    const row = await this.db.selectFrom('asset_shares').select('user_id').where('asset_id', '=', assetId).where('user_id', '=', userId).executeTakeFirst();
    return row !== undefined;
  }

  async addShares(assetId: string, userIds: string[], at: number) {
    if (!userIds.length) return;
    await this.db
      .insertInto('asset_shares')
      .values(userIds.map((user_id) => ({ asset_id: assetId, user_id, create_time: at })))
      .onConflict((oc) => oc.columns(['asset_id', 'user_id']).doNothing())
      .execute();
  }

  async removeShare(assetId: string, userId: string) {
    await this.db.deleteFrom('asset_shares').where('asset_id', '=', assetId).where('user_id', '=', userId).execute();
  }

  /** The users an asset is shared with (and those who added it from the public hall), in the order they were added. */
  async shareUserIds(assetId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('asset_shares').select('user_id').where('asset_id', '=', assetId).orderBy('create_time').execute();
    return rows.map((r) => r.user_id);
  }

  countShares(assetId: string) {
    return this.db
      .selectFrom('asset_shares')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('asset_id', '=', assetId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  countTeamShares(assetId: string) {
    return this.db
      .selectFrom('asset_team_shares')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('asset_id', '=', assetId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  // ---- shares with teams (ADR 0018) ---------------------------------------------------------------------

  async addTeamShare(assetId: string, teamId: string, at: number) {
    await this.db
      .insertInto('asset_team_shares')
      .values({ asset_id: assetId, team_id: teamId, create_time: at })
      .onConflict((oc) => oc.columns(['asset_id', 'team_id']).doNothing())
      .execute();
  }

  async removeTeamShare(assetId: string, teamId: string) {
    await this.db.deleteFrom('asset_team_shares').where('asset_id', '=', assetId).where('team_id', '=', teamId).execute();
  }

  /** The teams an asset is shared with, in the order they were added. */
  async teamShareIds(assetId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('asset_team_shares').select('team_id').where('asset_id', '=', assetId).orderBy('create_time').orderBy('team_id').execute();
    return rows.map((r) => r.team_id);
  }

  /** Assets (of every kind, or one) shared with a team, newest share first: 团队详情's list, and whose folders follow its members. */
  sharedWithTeam(teamId: string, kind?: AssetKind) {
    let q = this.base()
      .innerJoin('asset_team_shares', 'asset_team_shares.asset_id', 'assets.id')
      .where('asset_team_shares.team_id', '=', teamId);
    if (kind) q = q.where('assets.kind', '=', kind);
    return q.orderBy('asset_team_shares.create_time', 'desc').orderBy('assets.id').limit(500).execute();
  }
}
