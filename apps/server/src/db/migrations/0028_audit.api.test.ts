import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { openDb } from '../db';
import { migrations } from './index';

describe.each(engines)('migration 0028_audit (%s)', (engine) => {
  it('creates the append-only audit log (its triggers refuse UPDATE and DELETE), goes down cleanly and up again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const row = (id: string) => ({
        id,
        actor_kind: 'command',
        actor_id: null,
        actor_name: 'root@host',
        action: 'role.grant',
        target_type: 'user',
        target_id: 'u1',
        target_name: 'alice',
        before_json: '{"roles":["user"]}',
        after_json: '{"roles":["user","operator"]}',
        reason: '',
        ip: null,
        create_time: 1,
      });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await db.insertInto('audit_log').values(row('a1')).execute();
      await expect(db.updateTable('audit_log').set({ reason: 'x' }).execute()).rejects.toThrow(/append-only/);
      await expect(db.deleteFrom('audit_log').where('id', '=', 'a1').execute()).rejects.toThrow(/append-only/);

      expect((await migrator.migrateTo('0023_user_roles')).error).toBeUndefined();
      await expect(sql`select id from audit_log`.execute(db)).rejects.toThrow();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await db.insertInto('audit_log').values(row('a2')).execute();
      expect(await db.selectFrom('audit_log').select('id').execute()).toEqual([{ id: 'a2' }]);
      await expect(db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
