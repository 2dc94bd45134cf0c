import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
// The repository's own eslint.config.js: what `npm run check` runs.
const eslint = new ESLint({ cwd: root });
const RULE = 'Call the API through a route descriptor';

async function messages(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.message.startsWith(RULE)).map((m) => `${m.line}`);
}

describe('console calls go through route descriptors (npm run lint, issue 18 item 4)', () => {
  it('fails a console call whose URL and types are written by hand', async () => {
    const code = [
      "import { request } from '../../app/request';",
      "export const a = () => request.post<number>('/gateway/foundation/api/v1/message/unview/count', { data: {} });",
      'export const b = (svc: any) => svc.client.get(`/file/list`);',
    ].join('\n');
    expect(await messages('apps/console/src/features/team/api.ts', code)).toEqual(['2', '3']);
  });

  it('passes a call through a descriptor, and the transport itself', async () => {
    const ok = "import { MessageApi } from '@suanli/contracts';\nimport { call } from '../../app/request';\nexport const a = () => call(MessageApi.viewAll);";
    expect(await messages('apps/console/src/features/team/api.ts', ok)).toEqual([]);
    expect(await messages('apps/console/src/shared/http/client.ts', "export const g = (request: any) => request.get('/x');")).toEqual([]);
  });

  it('lists only files that still build URLs by hand (the legacy list only shrinks)', () => {
    const { files } = JSON.parse(fs.readFileSync(path.join(root, 'apps/console/lint/legacy-calls.json'), 'utf8')) as { files: string[] };
    for (const f of files) {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      expect(/\b(request|client)\.(get|post|put|delete)\b/.test(text), `${f} has no hand-built call left: remove it from legacy-calls.json`).toBe(true);
    }
  });
});
