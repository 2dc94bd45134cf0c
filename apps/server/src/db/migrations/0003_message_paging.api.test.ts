import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { MessageRepository } from '../../modules/message/message.repository';
import { openDb } from '../db';
import { migrations } from './index';

describe.each(engines)('migration 0003_message_paging (%s)', (engine) => {
  it('counts the messages stored before it, per user, type and read state, and later writes add to that', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0002_user')).error).toBeUndefined();
      const existing: [user: string, type: string, viewed: number][] = [
        ['alice', 'task', 0],
        ['alice', 'task', 0],
        ['alice', 'task', 1],
        ['alice', 'order', 0],
        ['bob', 'task', 1],
      ];
      await db
        .insertInto('messages')
        .values(existing.map(([user_id, type, viewed], i) => ({ id: `m${i}`, user_id, type, title: '', content: '', viewed, create_time: 1_700_000_000_000 + i })))
        .execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const repo = new MessageRepository(db);
      expect(await repo.count('alice', {})).toBe(4);
      expect(await repo.count('alice', { viewed: false })).toBe(3);
      expect(await repo.count('alice', { type: 'task' })).toBe(3);
      expect(await repo.count('alice', { type: 'task', viewed: true })).toBe(1);
      expect(await repo.count('bob', {})).toBe(1);
      expect(await repo.count('carol', {})).toBe(0);

      await repo.markAllViewed('alice');
      expect(await repo.count('alice', { viewed: false })).toBe(0);
      expect(await repo.count('alice', { viewed: true })).toBe(4);
      expect(await repo.count('bob', { viewed: true })).toBe(1);
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
