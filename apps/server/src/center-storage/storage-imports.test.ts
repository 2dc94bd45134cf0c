import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
// The repository's own eslint.config.js: what `npm run check` runs.
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports messages `npm run lint` gives for this code at this path. */
async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const WHY = "Modules reach a center's storage through CenterStorage (ctx.storage, center-storage/center-storage.ts), never the file service's internals (ADR 0016).";

describe("a center's disk only through CenterStorage (no-restricted-imports in npm run lint)", () => {
  it("fails a module that imports the file service's storage internals or its identity (a path on this host)", async () => {
    const code = [
      "import { Beneath } from '../../file-service/storage/beneath';",
      "import { parseUserPath } from '../../file-service/storage/paths';",
      "import * as storage from '../../file-service/storage';",
      "import { toFileUser } from '../../file-service/identity';",
      'export const x = [Beneath, parseUserPath, storage, toFileUser];',
    ].join('\n');
    const messages = await restricted('apps/server/src/modules/task/task-reader.ts', code);
    expect(messages).toHaveLength(4);
    for (const m of messages) expect(m).toContain(WHY);
    // Tests of a module too: they would otherwise keep the old assumption alive.
    expect(await restricted('apps/server/src/modules/asset/x.api.test.ts', "import { LocalAccountFs } from '../../file-service/storage/account-fs';\nexport const y = LocalAccountFs;")).toHaveLength(1);
  });

  it('passes a module using CenterStorage, and the storage code itself (outside the modules)', async () => {
    expect(await restricted('apps/server/src/modules/image/archive-files.ts', "import { parseUserPath, type CenterStorages } from '../../center-storage/center-storage';\nexport const f = (s: CenterStorages) => [s, parseUserPath];")).toEqual([]);
    expect(await restricted('apps/server/src/center-storage/local-center-storage.ts', "import { Beneath } from '../file-service/storage/beneath';\nexport const z = Beneath;")).toEqual([]);
    // Other file-service parts a module may name (the sync's receiver interface).
    expect(await restricted('apps/server/src/modules/sync/sync.runner.ts', "import type { SyncReceiver } from '../../file-service/sync.service';\nexport type R = SyncReceiver;")).toEqual([]);
  });
});
