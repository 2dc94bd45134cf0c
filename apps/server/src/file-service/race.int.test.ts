import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness';
import { FileClient } from '../../test/file-client';
import { prepareRace, runRace, snapshot } from '../../test/race';

const SECONDS = Number(process.env.RACE_SECONDS ?? 6);

// The symlink race (test/race.ts) on the embedded default: virtual accounts, the service's own user.
// The POSIX-accounts variant is in posix-accounts.int.test.ts.
describe('the symlink race (embedded default: virtual accounts, one service user)', () => {
  let t: TestApp;
  let alice: FileClient;
  let home: string;
  let outside: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    alice = new FileClient(`http://127.0.0.1:${port}/file-service/sz-a100/api/v1`, (await t.app.ctx.sessions.create('u-racer')).token);
    home = (await t.app.ctx.clusterAccounts.ensure('u-racer', 'sz-a100')).homeDir;
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-race-outside-'));
    prepareRace(home, outside);
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it(`reads, lists, writes and deletes nothing outside the home during ${SECONDS} s of swaps`, async () => {
    const before = snapshot(outside);
    const seen = await runRace({ client: alice, home, seconds: SECONDS });
    expect(seen.leaked).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    // The race was real: the swapper ran and each operation got through often.
    expect(seen.swapperExit).toBe(0);
    expect(seen.swaps).toBeGreaterThan(1000);
    expect(seen.insideReads).toBeGreaterThan(0);
    for (const n of [seen.downloads, seen.listings, seen.uploads, seen.deletes]) expect(n).toBeGreaterThanOrEqual(8);
    // No temp file of an upload is left anywhere in the home either.
    expect(Object.keys(snapshot(home)).filter((p) => p.includes('.suanli-upload-'))).toEqual([]);
  });
});
