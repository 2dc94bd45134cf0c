import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { openDb } from '../db';
import { migrations } from './index';

describe.each(engines)('migration 0033_team_compute (%s)', (engine) => {
  it('adds the payer columns (existing rows: null, their owner pays) and member limits; down removes them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0032_team')).error).toBeUndefined();
      await (db as any)
        .insertInto('consume_records')
        .values({ id: 'r1', owner_id: 'u1', task_id: 't1', task_kind: 'training', task_name: 'x', sub_center_id: 'c', card_type_id: 'k', card_num: 1, node_num: 1, comp_power_id: 'b', day: '2026-11-27', card_seconds: 10, elapsed_from: 0, elapsed_to: 10, start_time: 0, end_time: 10000, create_time: 0, update_time: 0 })
        .execute();
      expect((await migrator.migrateTo('0033_team_compute')).error).toBeUndefined();
      const row = await db.selectFrom('consume_records').select(['id', 'user_id']).executeTakeFirstOrThrow();
      expect(row).toEqual({ id: 'r1', user_id: null });
      await db.insertInto('team_member_limits').values({ team_id: 'tm', user_id: 'u1', card_seconds: 3600, set_by: 'u0', update_time: 1 }).execute();
      // One limit per team and member.
      await expect(db.insertInto('team_member_limits').values({ team_id: 'tm', user_id: 'u1', card_seconds: 7200, set_by: 'u0', update_time: 2 }).execute()).rejects.toThrow();
      expect((await migrator.migrateTo('0032_team')).error).toBeUndefined();
      await expect(db.selectFrom('team_member_limits').selectAll().execute()).rejects.toThrow();
      await expect(db.selectFrom('consume_records').select('user_id').execute()).rejects.toThrow();
      expect((await db.selectFrom('consume_records').select('id').execute()).map((r) => r.id)).toEqual(['r1']);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
