import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { openDb } from '../db';
import { migrations } from './index';

describe.each(engines)('migration 0023_user_roles (%s)', (engine) => {
  it('moves the roles string to rows (user is implied), drops the column, and back down again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0022_ide_origin')).error).toBeUndefined();
      const user = (id: string, roles: string) =>
        sql`insert into users (id, username, nickname, password_hash, roles, status, create_time, update_time)
            values (${id}, ${id}, ${id}, 'x', ${roles}, 'active', 1, 1)`.execute(db);
      await user('plain', 'user');
      await user('op', 'user,operator');
      await user('oponly', 'operator');

      expect((await migrator.migrateTo('0023_user_roles')).error).toBeUndefined();
      const rows = await db.selectFrom('user_roles').select(['user_id', 'role']).orderBy('user_id').execute();
      expect(rows).toEqual([
        { user_id: 'op', role: 'operator' },
        { user_id: 'oponly', role: 'operator' },
      ]);
      await expect(sql`select roles from users`.execute(db)).rejects.toThrow();

      // Down to just before 0023 (later migrations go down first).
      expect((await migrator.migrateTo('0022_ide_origin')).error).toBeUndefined();
      const back = await sql<{ id: string; roles: string }>`select id, roles from users order by id`.execute(db);
      expect(back.rows).toEqual([
        { id: 'op', roles: 'user,operator' },
        { id: 'oponly', roles: 'user,operator' },
        { id: 'plain', roles: 'user' },
      ]);
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
