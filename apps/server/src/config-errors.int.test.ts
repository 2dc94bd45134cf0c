import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs an entry point as `npm start` and the units in production do, with only `env` set; answers how it ended. */
function run(entry: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'apps/server/src', entry)], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** A copy of the shipped centers file with one line changed. */
function brokenCentersFile(from: string, to: string): string {
  const text = fs.readFileSync(path.join(repoRoot, 'config/centers.yaml'), 'utf8');
  expect(text).toContain(from);
  const file = path.join(dir, `centers-${Math.random().toString(36).slice(2)}.yaml`);
  fs.writeFileSync(file, text.replace(from, to));
  return file;
}

/**
 * Acceptance 5 of issue 18, end to end: each process refuses to start on a wrong setting with one line an
 * operator reads — the file and field, or the variable — exit code 2 and no stack trace, before it opens a
 * database or a port.
 */
describe('a wrong setting stops the start, naming it', () => {
  it('the gateway: PORT=abc', async () => {
    const r = await run('main.ts', { PORT: 'abc', DATA_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('gateway not started — environment: PORT must be an integer ≥ 0 and ≤ 65535 (got "abc")');
    expect(fs.existsSync(path.join(dir, 'suanli.db'))).toBe(false);
  });

  it('the gateway: a card type with no cards in the centers file', async () => {
    const file = brokenCentersFile('cardsPerNode: 8\n        cpusPerCard: 24', 'cardsPerNode: 0\n        cpusPerCard: 24');
    const r = await run('main.ts', { PORT: '0', DATA_DIR: dir, CENTERS_FILE: file, SEED_DEMO: 'false' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`gateway not started — ${file}: centers[1].cardTypes[0].cardsPerNode must be an integer ≥ 1 (got 0)`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(dir, 'suanli.db'))).toBe(false);
  });

  it('the standalone file service: a center status the file does not know, and an unknown CENTER_ID', async () => {
    const file = brokenCentersFile('status: online', 'status: up');
    const env = { CENTER_ID: 'sz-a100', GATEWAY_URL: 'http://127.0.0.1:1', PORT: '0', DATA_DIR: dir, CENTERS_FILE: file };
    const bad = await run('file-service/main.ts', env);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(`file service not started — ${file}: centers[0].status must be one of online, maintenance, offline (got "up")`);
    const unknown = await run('file-service/main.ts', { ...env, CENTERS_FILE: path.join(repoRoot, 'config/centers.yaml'), CENTER_ID: 'bj-h100' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toMatch(/^file service not started — environment: CENTER_ID bj-h100 is not a center of .*config\/centers\.yaml \(known: sz-a100, gz-ascend\)$/);
  });

  it('the launcher: a uid range that would include root', async () => {
    const r = await run('file-service/accounts/launcher-main.ts', { LAUNCHER_SOCKET: path.join(dir, 'l.sock'), CLIENT_USER: 'nobody', STORAGE_ROOT: dir, ACCOUNT_UID_MIN: '0', ACCOUNT_UID_MAX: '100' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('launcher not started — environment: ACCOUNT_UID_MIN must be an integer ≥ 1 (got 0)');
    expect(fs.existsSync(path.join(dir, 'l.sock'))).toBe(false);
  });
});
