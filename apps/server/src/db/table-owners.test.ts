import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { TABLE_OWNERS } from './table-owners';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
// The repository's own eslint.config.js: what `npm run check` runs.
const eslint = new ESLint({ cwd: root });

/** The own-tables messages `npm run lint` gives for this code at this path. */
async function ownTables(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === 'suanli/own-tables').map((m) => m.message);
}

describe('table ownership (suanli/own-tables in npm run lint)', () => {
  it('fails a repository that reads another module\'s table: a join, a selectFrom, raw sql', async () => {
    const code = [
      "import { sql } from 'kysely';",
      'export class ResourceRepository {',
      '  constructor(private readonly db: any) {}',
      "  a() { return this.db.selectFrom('tasks').selectAll().execute(); }",
      "  b() { return this.db.selectFrom('resource_samples as s').innerJoin('users as u', 'u.id', 's.owner').execute(); }",
      '  c() { return sql`select id from sessions where id = 1`.execute(this.db); }',
      '}',
    ].join('\n');
    expect(await ownTables('apps/server/src/modules/resource/resource.repository.ts', code)).toEqual([
      "Table 'tasks' belongs to the task module: read it through that module's service, not from 'resource' (docs/adding-a-module.md §4).",
      "Table 'users' belongs to the user module: read it through that module's service, not from 'resource' (docs/adding-a-module.md §4).",
      "Table 'sessions' belongs to the auth module: read it through that module's service, not from 'resource' (docs/adding-a-module.md §4).",
    ]);
  });

  it('fails a table nobody owns, and code in realtime/ reading a module\'s table', async () => {
    expect(await ownTables('apps/server/src/modules/team/team.repository.ts', "export const q = (db: any) => db.insertInto('team_storage_areas').values({}).execute();")).toEqual([
      "Table 'team_storage_areas' has no owner in apps/server/src/db/table-owners.json: add it to its module's entry.",
    ]);
    expect(await ownTables('apps/server/src/realtime/x.ts', "export const q = (db: any) => db.selectFrom('sessions').selectAll().execute();")).toHaveLength(1);
  });

  it('passes a module reading its own tables, and code outside the modules', async () => {
    const own = "export const q = (db: any) => db.selectFrom('assets').innerJoin('asset_shares', 'asset_shares.asset_id', 'assets.id').selectAll().execute();";
    expect(await ownTables('apps/server/src/modules/asset/asset.repository.ts', own)).toEqual([]);
    expect(await ownTables('apps/server/src/db/lease.repository.ts', "export const q = (db: any) => db.selectFrom('users').execute();")).toEqual([]);
  });

  it('names an owner for every table, each a module folder (or db/ for shared infrastructure)', async () => {
    const fs = await import('node:fs');
    const modules = new Set(fs.readdirSync(path.join(root, 'apps/server/src/modules')));
    for (const [table, owner] of Object.entries(TABLE_OWNERS)) expect(owner === 'db' || modules.has(owner), `${table} → ${owner}`).toBe(true);
  });
});
