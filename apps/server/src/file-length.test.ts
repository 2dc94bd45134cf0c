import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The repository's own eslint.config.js: what `npm run check` runs.
const eslint = new ESLint({ cwd: root });

/** A file of `n` lines (each a statement), after `head` lines. */
const file = (n: number, head: string[] = []) =>
  [...head, ...Array.from({ length: n - head.length }, (_, i) => `export const v${i} = ${i};`)].join('\n') + '\n';

/** The file-length messages `npm run lint` gives for this code at this path. */
async function fileLength(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === 'suanli/file-length').map((m) => m.message);
}

describe('no source file over 400 lines without a reason (suanli/file-length in npm run lint)', () => {
  // The first lint loads the config and its plugins (typescript-eslint): seconds on a loaded CI machine, once
  // per file — here, not inside the first case's 5 s.
  beforeAll(() => eslint.lintText('export {};\n', { filePath: path.join(root, 'apps/server/src/x.ts') }), 60_000);

  it('fails a file of 401 lines without a reason, wherever it is: server, console, e2e, bench, contracts, scripts', async () => {
    for (const where of [
      'apps/server/src/modules/team/team.service.ts',
      'apps/console/src/features/team/team-page.tsx',
      'e2e/team.e2e.ts',
      'bench/team.ts',
      'packages/contracts/src/team.ts',
      'scripts/team.mjs',
    ]) {
      expect(await fileLength(where, file(401)), where).toEqual([
        'This file has 401 lines (at most 400): split it, or say why it is longer on its first line: `// Over 400 lines: <reason>`.',
      ]);
    }
  });

  it('passes a long file whose first line gives the reason (after a #! line in a script), and any file of 400 lines', async () => {
    const reason = '// Over 400 lines: one describe per engine-independent case group, sharing one app';
    expect(await fileLength('apps/server/src/modules/team/team.api.test.ts', file(650, [reason]))).toEqual([]);
    expect(await fileLength('scripts/team.mjs', file(401, ['#!/usr/bin/env node', reason]))).toEqual([]);
    expect(await fileLength('apps/server/src/modules/team/team.service.ts', file(400))).toEqual([]);
  });

  it('fails a reason that says nothing, one below the first line, and one left on a file that is no longer long', async () => {
    expect(await fileLength('apps/server/src/x.ts', file(401, ['// Over 400 lines: long']))).toEqual([
      'This file has 401 lines: its first line must say why (`// Over 400 lines: <reason>`, ten characters at least).',
    ]);
    expect(await fileLength('apps/server/src/x.ts', file(401, ["import fs from 'node:fs';", '// Over 400 lines: the reason, but too late']))).toHaveLength(1);
    expect(await fileLength('apps/server/src/x.ts', file(120, ['// Over 400 lines: it was, before the split']))).toEqual([
      'This file has 120 lines, no more than 400: take the `// Over 400 lines:` reason off its first line.',
    ]);
  });
});
