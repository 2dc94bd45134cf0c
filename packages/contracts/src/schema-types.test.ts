import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 18 item 4: every exported schema has its type (`export type X = Static<typeof X>` beside
 * `export const X = Type.…`), so a consumer never re-declares a shape the contract already states. Route
 * descriptor objects (`…Api`, `…Schemas`) and constants are not schemas.
 */
const SCHEMA = /^export const (\w+)\s*(?::[^=]+)?=\s*(?:Type\.|Page\(|Envelope\()/gm;
/** Schemas whose type is exported under the name users know (the schema keeps a `Schema` suffix). */
const RENAMED = new Set(['MessageTypeSchema', 'WorkOrderTypeSchema', 'WorkOrderStateSchema']);

describe('contracts', () => {
  it('export a type for every exported schema', () => {
    const dir = path.dirname(new URL(import.meta.url).pathname);
    const missing: string[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const types = new Set([...text.matchAll(/^export type (\w+)/gm)].map((m) => m[1]));
      for (const [, name] of text.matchAll(SCHEMA)) if (!types.has(name) && !RENAMED.has(name)) missing.push(`${file}: ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
