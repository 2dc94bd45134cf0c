import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDatabase, engines } from '../../../test/harness';
import { openDb } from '../db';
import { migrations } from './index';

const rec = (id: string, kind: string, end: number | null) => ({
  id,
  kind,
  user_id: 'u1',
  sub_center_id: 'sz-a100',
  account: 'a',
  target: kind === 'shell' ? 'ssh' : 'task-1',
  client_ip: '',
  start_time: 1000,
  end_time: end,
  end_reason: end === null ? '' : 'closed',
});

describe.each(engines)('migration 0017_access_seen (%s)', (engine) => {
  it('gives shells left open before it a last-seen time (their start), so the sweep ends them; nothing else', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
    const pgDb = engine === 'postgres' ? await createPgDatabase() : null;
    const { db, close } = openDb({ databaseUrl: pgDb?.url, sqliteFile: path.join(dir, 'suanli.db') });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0016_sync_cancel')).error).toBeUndefined();
      // Before 0017 the row type has no seen_time: insert through the untyped builder.
      await (db as any).insertInto('access_sessions').values([rec('s-open', 'shell', null), rec('s-done', 'shell', 2000), rec('p-open', 'proxy', null)]).execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await db.selectFrom('access_sessions').select(['id', 'seen_time']).orderBy('id').execute();
      expect(rows.map((r) => [r.id, r.seen_time == null ? null : Number(r.seen_time)])).toEqual([
        ['p-open', null],
        ['s-done', null],
        ['s-open', 1000],
      ]);
    } finally {
      await close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
