import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness';
import { FileClient, sha256 } from '../../test/file-client';

/**
 * The symlink race of issue 7, as an attacker runs it: in the user's home a directory `race/` and a link
 * `racelink -> <outside>` are swapped atomically in a loop (renameat2 RENAME_EXCHANGE, test/swap-race.py)
 * while four clients hammer download, listing, upload and delete of paths under `/race`. Whatever the
 * interleaving, nothing outside the home may be read, listed, written or deleted.
 */
const SECONDS = Number(process.env.RACE_SECONDS ?? 6);
const SWAPPER = path.resolve(import.meta.dirname, '../../test/swap-race.py');

/** Every file under `dir` with its content hash (and links with their targets). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (e.isFile()) out[r] = sha256(fs.readFileSync(path.join(d, e.name)));
      else out[`${r}@`] = '';
    }
  };
  walk(dir, '');
  return out;
}

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
    fs.writeFileSync(path.join(outside, 'f.txt'), 'OUTSIDE SECRET');
    fs.writeFileSync(path.join(outside, 'victim.txt'), 'must survive');
    fs.writeFileSync(path.join(outside, 'outside-only.txt'), 'x');
    fs.mkdirSync(path.join(home, 'race'), { recursive: true });
    fs.writeFileSync(path.join(home, 'race', 'f.txt'), 'inside');
    fs.symlinkSync(outside, path.join(home, 'racelink'));
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it(`reads, lists, writes and deletes nothing outside the home during ${SECONDS} s of swaps`, async () => {
    const before = snapshot(outside);
    // The real race directory, held by descriptor: the victim is put back through it, wherever its name is now.
    const raceFd = fs.openSync(path.join(home, 'race'), 'r');
    const swapper = spawn('python3', [SWAPPER, path.join(home, 'race'), path.join(home, 'racelink'), String(SECONDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let swaps = '';
    swapper.stdout.on('data', (b: Buffer) => (swaps += b));
    const swapperDone = new Promise<number>((resolve) => swapper.on('exit', (code) => resolve(code ?? -1)));
    const end = Date.now() + SECONDS * 1000 - 300;
    const seen = { downloads: 0, insideBytes: 0, leaked: [] as string[], listings: 0, uploads: 0, deletes: 0 };

    const loop = async (op: (i: number) => Promise<void>) => {
      for (let i = 0; Date.now() < end; i++) await op(i);
    };
    await Promise.all([
      loop(async () => {
        const res = await alice.download(['/race/f.txt']);
        const body = Buffer.from(await res.arrayBuffer()).toString();
        seen.downloads++;
        if (body === 'inside') seen.insideBytes++;
        if (body.includes('OUTSIDE')) seen.leaked.push(`download: ${body}`);
      }),
      loop(async () => {
        const r = await alice.list('/race');
        seen.listings++;
        const names: string[] = r.data?.list?.map((e: { name: string }) => e.name) ?? [];
        if (names.includes('outside-only.txt')) seen.leaked.push(`listing: ${names.join(',')}`);
      }),
      loop(async (i) => {
        await alice.upload('/race', `up-${i}.txt`, Buffer.from('written by the racer'));
        seen.uploads++;
      }),
      loop(async () => {
        fs.writeFileSync(`/proc/self/fd/${raceFd}/victim.txt`, 'inside victim');
        await alice.remove(['/race/victim.txt']);
        seen.deletes++;
      }).catch(() => {}),
    ]);
    expect(await swapperDone).toBe(0);
    fs.closeSync(raceFd);

    expect(seen.leaked).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    // The race was real: the swapper ran and each operation got through often.
    expect(Number(swaps)).toBeGreaterThan(1000);
    expect(seen.insideBytes).toBeGreaterThan(0);
    for (const n of [seen.downloads, seen.listings, seen.uploads, seen.deletes]) expect(n).toBeGreaterThan(10);
    // No temp file of an upload is left anywhere in the home either.
    const temps = Object.keys(snapshot(home)).filter((p) => p.includes('.suanli-upload-'));
    expect(temps).toEqual([]);
  });
});
