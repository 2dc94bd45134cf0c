import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { openDb } from '../db';
import { migrations } from './index';

const user = (id: string, username: string) => ({
  id,
  username,
  nickname: username,
  phone: null,
  email: null,
  password_hash: 'x',
  head_image: null,
  status: 'active',
  create_time: 1,
  update_time: 1,
});

describe.each(engines)('migration 0004_username_nocase (%s)', (engine) => {
  async function withDb(fn: (db: ReturnType<typeof openDb>['db'], migrator: Migrator) => Promise<void>) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      await fn(db, new Migrator({ db, provider: { getMigrations: async () => migrations } }));
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('makes usernames unique regardless of case', async () => {
    await withDb(async (db, migrator) => {
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await db.insertInto('users').values(user('u1', 'Carol_1')).execute();
      await expect(db.insertInto('users').values(user('u2', 'carol_1')).execute()).rejects.toThrow();
      await db.insertInto('users').values(user('u3', 'carol_2')).execute();
    });
  });

  it('stops, naming them, when existing usernames differ only in case', async () => {
    await withDb(async (db, migrator) => {
      expect((await migrator.migrateTo('0003_message_paging')).error).toBeUndefined();
      await db.insertInto('users').values([user('u1', 'Dave'), user('u2', 'dave'), user('u3', 'erin')]).execute();
      const { error } = await migrator.migrateToLatest();
      expect(String(error)).toContain('usernames that differ only in case must be renamed first: dave');
    });
  });
});
