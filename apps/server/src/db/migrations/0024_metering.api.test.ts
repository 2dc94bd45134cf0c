import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { isUniqueViolation } from '../unique';
import { openDb } from '../db';
import { migrations } from './index';

describe.each(engines)('migration 0024_metering (%s)', (engine) => {
  it('keeps the charge records, lets grants in (no order, a unique key), adds the metering tables; and back down', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0023_user_roles')).error).toBeUndefined();
      await sql`insert into charge_records (id, owner_id, order_id, order_no, amount, card_seconds, comp_power_id, sub_center_id, card_type_id, pay_channel, create_time)
                values ('c1', 'u1', 'o1', 'DD202501010001', 12800, 36000, 'b1', 'sz-a100', 'a100-80g', 'offline', 5)`.execute(db);
      const before = Date.now();
      expect((await migrator.migrateTo('0024_metering')).error).toBeUndefined();

      expect(await db.selectFrom('charge_records').selectAll().execute()).toEqual([
        {
          id: 'c1',
          owner_id: 'u1',
          kind: 'order',
          order_id: 'o1',
          order_no: 'DD202501010001',
          amount: 12800,
          card_seconds: 36000,
          comp_power_id: 'b1',
          sub_center_id: 'sz-a100',
          card_type_id: 'a100-80g',
          pay_channel: 'offline',
          reason: '',
          granted_by: null,
          grant_key: null,
          create_time: 5,
        },
      ]);
      const grant = (id: string, key: string | null) =>
        db
          .insertInto('charge_records')
          .values({ id, owner_id: 'u1', kind: 'grant', order_id: null, order_no: null, amount: 0, card_seconds: 3600, comp_power_id: `b-${id}`, sub_center_id: 'sz-a100', card_type_id: 'a100-80g', pay_channel: null, reason: '赠送', granted_by: null, grant_key: key, create_time: 6 })
          .execute();
      await grant('g1', null);
      await grant('g2', null);
      await grant('g3', 'welcome:u1:sz-a100:a100-80g');
      const dup = await grant('g4', 'welcome:u1:sz-a100:a100-80g').catch((e: unknown) => e);
      expect(isUniqueViolation(dup)).toBe(true);
      // Metering began at the migration: the cursor of centers not passed over yet.
      const star = await db.selectFrom('metering_cursors').selectAll().execute();
      expect(star).toHaveLength(1);
      expect(star[0].sub_center_id).toBe('*');
      expect(Number(star[0].since)).toBeGreaterThanOrEqual(before);
      expect(await db.selectFrom('task_meters').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('consume_records').selectAll().execute()).toEqual([]);

      expect((await migrator.migrateDown()).error).toBeUndefined();
      const back = await sql<{ id: string }>`select id from charge_records order by id`.execute(db);
      expect(back.rows.map((r) => r.id)).toEqual(['c1']);
      await expect(sql`select 1 from task_meters`.execute(db)).rejects.toThrow();
      // Up again from there.
      expect((await migrator.migrateTo('0024_metering')).error).toBeUndefined();
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
