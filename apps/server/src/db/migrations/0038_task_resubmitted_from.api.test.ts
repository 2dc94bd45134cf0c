import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { openDb } from '../db';
import { migrations } from './index';

describe.each(engines)('migration 0038_task_resubmitted_from (%s)', (engine) => {
  it('adds the task a task was resubmitted from, goes down cleanly and up again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const cols = async () => (await sql<{ x: number }>`select resubmitted_from from tasks`.execute(db)).rows;
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(await cols()).toEqual([]);
      expect((await migrator.migrateTo('0035_task_evidence')).error).toBeUndefined();
      await expect(cols()).rejects.toThrow();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(await cols()).toEqual([]);
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
