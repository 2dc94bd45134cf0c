import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FileClient } from './file-client';
import { sha256 } from './file-client';

/**
 * The symlink race of issue 7, as an attacker runs it: in the user's home a directory `race/` and a link
 * `racelink -> <outside>` are swapped atomically in a loop (renameat2 RENAME_EXCHANGE, swap-race.py, run as
 * `swapAs` when given — the cluster account) while four clients hammer download, listing, upload and delete
 * of paths under `/race`. The caller asserts that nothing outside was read, listed, written or deleted.
 */
const SWAPPER = path.resolve(import.meta.dirname, 'swap-race.py');

/** Every file under `dir` with its content hash (and links marked). */
export function snapshot(dir: string): Record<string, string> {
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

/** Lays out the race: `home/race/f.txt` (inside), `home/racelink -> outside`, and the outside files. */
export function prepareRace(home: string, outside: string, owner?: { uid: number; gid: number }) {
  fs.writeFileSync(path.join(outside, 'f.txt'), 'OUTSIDE SECRET');
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must survive');
  fs.writeFileSync(path.join(outside, 'outside-only.txt'), 'x');
  fs.mkdirSync(path.join(home, 'race'), { recursive: true });
  fs.writeFileSync(path.join(home, 'race', 'f.txt'), 'inside');
  fs.symlinkSync(outside, path.join(home, 'racelink'));
  if (owner) {
    for (const p of ['race', 'race/f.txt']) fs.chownSync(path.join(home, p), owner.uid, owner.gid);
    fs.lchownSync(path.join(home, 'racelink'), owner.uid, owner.gid);
  }
}

/**
 * The attacker's swapper alone (swap-race.py): `home/race` and `home/racelink` exchanged atomically in a loop
 * for at most `seconds`, as `swapAs` when given. `stop()` ends it and answers how many swaps it made and how it
 * exited. For races against other clients than the file service's (the CenterStorage contract).
 */
export function startSwapper(home: string, seconds: number, swapAs?: { uid: number; gid: number }) {
  const swapper = spawn('python3', [SWAPPER, path.join(home, 'race'), path.join(home, 'racelink'), String(seconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    uid: swapAs?.uid,
    gid: swapAs?.gid,
  });
  let swaps = '';
  swapper.stdout.on('data', (b: Buffer) => (swaps += b));
  const exit = new Promise<number>((resolve) => swapper.on('exit', (code) => resolve(code ?? -1)));
  return {
    async stop() {
      swapper.kill('SIGTERM');
      return { exit: await exit, swaps: Number(swaps) };
    },
  };
}

/**
 * Runs the race for at least `seconds`, and on (up to `maxSeconds`) until every operation got through
 * `minEach` times — a loaded machine (slow worker starts) must not turn the race into a no-op.
 */
export async function runRace(opts: { client: FileClient; home: string; seconds: number; maxSeconds?: number; minEach?: number; swapAs?: { uid: number; gid: number } }) {
  const { client, home, seconds } = opts;
  // The real race directory, held by descriptor: the victim is put back through it, wherever its name is now.
  const raceFd = fs.openSync(path.join(home, 'race'), 'r');
  const maxSeconds = opts.maxSeconds ?? seconds * 5;
  const minEach = opts.minEach ?? 8;
  const swapper = startSwapper(home, maxSeconds + 5, opts.swapAs);
  const start = Date.now();
  const seen = { downloads: 0, insideReads: 0, leaked: [] as string[], listings: 0, uploads: 0, deletes: 0, swaps: 0, swapperExit: 0 };
  const enough = () => Math.min(seen.downloads, seen.listings, seen.uploads, seen.deletes) >= minEach;
  const going = () => Date.now() - start < seconds * 1000 || (!enough() && Date.now() - start < maxSeconds * 1000);
  const loop = async (op: (i: number) => Promise<void>) => {
    for (let i = 0; going(); i++) await op(i);
  };
  await Promise.all([
    loop(async () => {
      const res = await client.download(['/race/f.txt']);
      const body = Buffer.from(await res.arrayBuffer()).toString();
      seen.downloads++;
      if (body === 'inside') seen.insideReads++;
      if (body.includes('OUTSIDE')) seen.leaked.push(`download: ${body}`);
    }),
    loop(async () => {
      const r = await client.list('/race');
      seen.listings++;
      const names: string[] = r.data?.list?.map((e: { name: string }) => e.name) ?? [];
      if (names.includes('outside-only.txt')) seen.leaked.push(`listing: ${names.join(',')}`);
    }),
    loop(async (i) => {
      await client.upload('/race', `up-${i}.txt`, Buffer.from('written by the racer'));
      seen.uploads++;
    }),
    loop(async () => {
      const victim = `/proc/self/fd/${raceFd}/victim.txt`;
      fs.writeFileSync(victim, 'inside victim');
      if (opts.swapAs) fs.chownSync(victim, opts.swapAs.uid, opts.swapAs.gid);
      await client.remove(['/race/victim.txt']);
      seen.deletes++;
    }),
  ]);
  const stopped = await swapper.stop();
  seen.swapperExit = stopped.exit;
  seen.swaps = stopped.swaps;
  fs.closeSync(raceFd);
  return seen;
}
