import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import type { CenterStorage } from '../src/center-storage/center-storage';
import { prepareRace, snapshot as treeOf, startSwapper } from './race';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const text = async (s: Readable) => {
  const parts: Buffer[] = [];
  for await (const b of s) parts.push(b as Buffer);
  return Buffer.concat(parts).toString('utf8');
};
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o777;
/** The AppError code a call was refused with (0 when it was not refused). */
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 0,
    (e: { code?: unknown }) => (typeof e?.code === 'number' ? e.code : -1),
  );

let n = 0;
/** A fresh account name and asset id per case, so the cases of both implementations share one disk. */
const fresh = () => {
  n++;
  return { account: `ct${process.pid % 1000}x${n}`, assetId: `a${randomBytes(6).toString('hex')}`, versionId: `v${randomBytes(6).toString('hex')}` };
};

export interface ContractSubject {
  storage: CenterStorage;
  /** The center's storage root on this host's disk (the cases lay out and inspect files there). */
  root: string;
}

/**
 * The cases every CenterStorage implementation must pass, the same ones for each (ADR 0016): homes (what a
 * stat, a read, a write see; links refused, never followed; paths and accounts that would leave the home
 * refused), the asset area (snapshot, manifest, read-only modes, ACLs, listing, README, files, adopting a
 * synced copy, removal) and a symlink race (`test/race.ts`'s swapper) against reads, streams, writes and
 * snapshots. Called inside a `describe` whose `beforeAll` fills `subject`.
 */
export function centerStorageContract(subject: () => ContractSubject, raceSeconds = 4) {
  const home = (account: string) => path.join(subject().root, 'home', account);
  const area = () => path.join(subject().root, '.assets');

  it('makes a home, writes, stats and reads files in it; missing things are null', async () => {
    const { storage } = subject();
    const { account } = fresh();
    await storage.ensureHome(account);
    expect(fs.statSync(home(account)).isDirectory()).toBe(true);
    expect(await storage.stat(account, '/')).toMatchObject({ type: 'dir' });

    await storage.writeFile(account, '/logs/run 1/out.log', Readable.from([Buffer.from('第一行\n'), Buffer.from('second line\n')]));
    expect(fs.readFileSync(path.join(home(account), 'logs/run 1/out.log'), 'utf8')).toBe('第一行\nsecond line\n');
    const size = Buffer.byteLength('第一行\nsecond line\n');
    expect(await storage.stat(account, '/logs/run 1/out.log')).toMatchObject({ type: 'file', size });
    expect(await storage.stat(account, 'logs/run 1')).toMatchObject({ type: 'dir' });

    const head = await storage.readFile(account, '/logs/run 1/out.log', 0, 9);
    expect(head?.size).toBe(size);
    expect(head?.bytes.toString('utf8')).toBe('第一行');
    expect((await storage.readFile(account, '/logs/run 1/out.log', 10, 1000))?.bytes.toString('utf8')).toBe('second line\n');
    expect(await storage.readFile(account, '/logs/run 1/out.log', size + 5, 10)).toEqual({ bytes: Buffer.alloc(0), size });
    const whole = await storage.openFile(account, '/logs/run 1/out.log');
    expect(whole?.size).toBe(size);
    expect(await text(whole!.stream)).toBe('第一行\nsecond line\n');

    // Larger than any JSON body a file service takes (1 MiB): streamed, never buffered whole.
    const big = randomBytes(3 * 1024 * 1024 + 17);
    await storage.writeFile(account, '/big.bin', Readable.from([big.subarray(0, 1 << 20), big.subarray(1 << 20)]));
    expect(sha256(fs.readFileSync(path.join(home(account), 'big.bin')))).toBe(sha256(big));
    const bigRead = await storage.openFile(account, '/big.bin');
    const bigParts: Buffer[] = [];
    for await (const b of bigRead!.stream) bigParts.push(b as Buffer);
    expect([bigRead!.size, sha256(Buffer.concat(bigParts))]).toEqual([big.length, sha256(big)]);
    // A file written again is replaced; an empty one reads as empty.
    await storage.writeFile(account, '/logs/run 1/out.log', Readable.from([Buffer.from('v2')]));
    expect(await text((await storage.openFile(account, '/logs/run 1/out.log'))!.stream)).toBe('v2');
    await storage.writeFile(account, '/empty', Readable.from([]));
    expect(await storage.readFile(account, '/empty', 0, 100)).toEqual({ bytes: Buffer.alloc(0), size: 0 });
    const empty = await storage.openFile(account, '/empty');
    expect(empty?.size).toBe(0);
    expect(await text(empty!.stream)).toBe('');

    for (const p of ['/nope.log', '/missing/dir/x.log']) {
      expect(await storage.stat(account, p)).toBeNull();
      expect(await storage.readFile(account, p, 0, 10)).toBeNull();
      expect(await storage.openFile(account, p)).toBeNull();
    }
    // A folder is no file.
    expect(await storage.readFile(account, '/logs', 0, 10)).toBeNull();
    expect(await storage.openFile(account, '/logs')).toBeNull();

    // A folder made with its missing parents (a task's working folder); again is fine; over a file refused.
    await storage.makeDir(account, '/tasks/训练 1-abc');
    await storage.makeDir(account, '/tasks/训练 1-abc');
    expect(fs.statSync(path.join(home(account), 'tasks/训练 1-abc')).isDirectory()).toBe(true);
    expect(fs.statSync(path.join(home(account), 'tasks/训练 1-abc')).uid).toBe(fs.statSync(home(account)).uid);
    expect(await storage.stat(account, '/tasks/训练 1-abc')).toMatchObject({ type: 'dir' });
    expect(await codeOf(storage.makeDir(account, '/empty/sub'))).toBeGreaterThan(1000);
    expect(await codeOf(storage.makeDir(account, '/'))).toBe(1005);
  });

  it('never follows a link and never leaves the home: links are reported or refused (1308), bad paths and accounts refused', async () => {
    const { storage } = subject();
    const { account, assetId, versionId } = fresh();
    await storage.ensureHome(account);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-ct-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE SECRET');
      fs.symlinkSync(outside, path.join(home(account), 'out'));
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(home(account), 'secret-link'));
      expect(await storage.stat(account, '/out')).toMatchObject({ type: 'link' });
      expect(await storage.stat(account, '/secret-link')).toMatchObject({ type: 'link' });
      expect(await codeOf(storage.stat(account, '/out/secret.txt'))).toBe(1308);
      expect(await codeOf(storage.readFile(account, '/out/secret.txt', 0, 100))).toBe(1308);
      expect(await codeOf(storage.readFile(account, '/secret-link', 0, 100))).toBe(1308);
      expect(await codeOf(storage.openFile(account, '/secret-link'))).toBe(1308);
      expect(await codeOf(storage.writeFile(account, '/out/new.txt', Readable.from([Buffer.from('x')])))).toBe(1308);
      expect(await codeOf(storage.makeDir(account, '/out/new/dir'))).toBe(1308);
      expect(await codeOf(storage.makeDir(account, '/../escape'))).toBe(1308);
      expect(await codeOf(storage.snapshot(account, '/out', assetId, versionId, () => {}))).toBe(1308);
      // `..` is refused, never resolved (also where it would stay inside).
      for (const p of ['/../x', '/logs/../../etc/passwd', '..']) expect(await codeOf(storage.stat(account, p)), p).toBe(1308);
      expect(await codeOf(storage.readFile(account, '/../../../etc/passwd', 0, 10))).toBe(1308);
      // An account is a name, never a path.
      for (const bad of ['../ct', 'a/b', '.', '..', '']) expect(await codeOf(storage.ensureHome(bad)), bad).toBe(1005);
      expect(await codeOf(storage.readFile('..', '/etc/passwd', 0, 10))).toBe(1005);
      // Nothing outside was written.
      expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('snapshots a folder into a read-only version with its manifest; lists, reads, removes it', async () => {
    const { storage } = subject();
    const { account, assetId, versionId } = fresh();
    await storage.ensureHome(account);
    const src = path.join(home(account), 'data');
    fs.mkdirSync(path.join(src, 'sub/deeper'), { recursive: true });
    fs.writeFileSync(path.join(src, 'README.md'), '# 数据集\n说明');
    fs.writeFileSync(path.join(src, 'a.csv'), 'x,y\n1,2\n');
    fs.writeFileSync(path.join(src, 'sub/b.bin'), randomBytes(200_000));
    fs.writeFileSync(path.join(src, 'sub/deeper/c.txt'), '');
    fs.symlinkSync('/etc', path.join(src, 'etc-link'));
    const progress: [number, number][] = [];
    const snap = await storage.snapshot(account, '/data', assetId, versionId, (copied, total) => progress.push([copied, total]));
    const files = ['README.md', 'a.csv', 'sub/b.bin', 'sub/deeper/c.txt'];
    const manifest = files.map((f) => `${sha256(fs.readFileSync(path.join(src, f)))}  ${f}\n`).join('');
    const total = files.reduce((sum, f) => sum + fs.statSync(path.join(src, f)).size, 0);
    expect(snap).toEqual({ sizeBytes: total, fileCount: 4, digest: sha256(manifest) });
    for (let i = 1; i < progress.length; i++) expect(progress[i][0]).toBeGreaterThanOrEqual(progress[i - 1][0]);
    for (const [copied, t] of progress) expect([copied <= t, t]).toEqual([true, total]);

    const dir = path.join(area(), assetId, versionId);
    expect(fs.readFileSync(`${dir}.sha256`, 'utf8')).toBe(manifest);
    expect(await storage.versionManifest(assetId, versionId)).toBe(manifest);
    expect([modeOf(dir), modeOf(path.join(dir, 'sub')), modeOf(path.join(dir, 'a.csv')), modeOf(path.join(dir, 'sub/b.bin'))]).toEqual([0o555, 0o555, 0o444, 0o444]);
    // The link was skipped, not followed; nothing of the copy's temp folder is left.
    expect(fs.existsSync(path.join(dir, 'etc-link'))).toBe(false);
    expect(fs.readdirSync(path.join(area(), assetId)).sort()).toEqual([versionId, `${versionId}.sha256`]);
    // A new asset's folder stays closed until its access is set.
    expect(modeOf(path.join(area(), assetId))).toBe(0o700);
    expect(await storage.hasAssetDir(assetId)).toBe(true);
    expect(await storage.assetDirs()).toContain(assetId);

    expect(await storage.listVersion(assetId, versionId, '/')).toEqual([
      { name: 'sub', type: 'dir', size: 0 },
      { name: 'a.csv', type: 'file', size: 8 },
      { name: 'README.md', type: 'file', size: Buffer.byteLength('# 数据集\n说明') },
    ]);
    expect(await storage.listVersion(assetId, versionId, 'sub')).toEqual([
      { name: 'deeper', type: 'dir', size: 0 },
      { name: 'b.bin', type: 'file', size: 200_000 },
    ]);
    expect(await storage.versionReadme(assetId, versionId)).toEqual({ markdown: '# 数据集\n说明', fileName: 'README.md' });
    const opened = await storage.openVersionFile(assetId, versionId, '/sub/b.bin');
    expect(opened.size).toBe(200_000);
    const got: Buffer[] = [];
    for await (const b of opened.stream) got.push(b as Buffer);
    expect(sha256(Buffer.concat(got))).toBe(sha256(fs.readFileSync(path.join(src, 'sub/b.bin'))));
    expect(await codeOf(storage.openVersionFile(assetId, versionId, '/nope.txt'))).toBe(1301);
    expect(await codeOf(storage.openVersionFile(assetId, versionId, '/sub'))).toBe(1301);
    expect(await codeOf(storage.listVersion(assetId, versionId, '/nope'))).toBe(1302);
    expect(await codeOf(storage.listVersion(assetId, versionId, '/../..'))).toBe(1308);
    expect(await codeOf(storage.listVersion(assetId, 'v-missing', '/'))).toBe(1302);
    expect(await storage.versionManifest(assetId, 'v-missing')).toBeNull();

    await storage.removeVersion(assetId, versionId);
    expect(fs.readdirSync(path.join(area(), assetId))).toEqual([]);
    await storage.removeAsset(assetId);
    expect(await storage.hasAssetDir(assetId)).toBe(false);
    // Removing what is not there is fine.
    await storage.removeVersion(assetId, versionId);
    await storage.removeAsset(assetId);
  });

  it('a snapshot that fails leaves nothing behind: a missing or link source, too many files', async () => {
    const { storage } = subject();
    const { account, assetId, versionId } = fresh();
    await storage.ensureHome(account);
    expect(await codeOf(storage.snapshot(account, '/nope', assetId, versionId, () => {}))).toBe(1302);
    expect(fs.readdirSync(path.join(area(), assetId))).toEqual([]);
    expect(await codeOf(storage.snapshot(account, '/', assetId, '../v', () => {}))).toBe(1005);
  });

  it('sets who may read an asset folder (ADR 0013): public 0755, private 0750 with exactly the readers, closes orphans', async () => {
    const { storage } = subject();
    const { assetId } = fresh();
    expect(await storage.applyAccess(assetId, { public: false, uids: [20001] })).toBe(false);
    expect(await storage.applyAccess(assetId, { public: false, uids: [20003, 20001, 20001] }, { create: true })).toBe(true);
    const dir = path.join(area(), assetId);
    expect(modeOf(area())).toBe(0o711);
    expect(modeOf(dir)).toBe(0o750);
    const acl = () => execFileSync('getfacl', ['--numeric', '--omit-header', dir], { encoding: 'utf8' }).trim().split('\n');
    expect(acl()).toEqual(['user::rwx', 'user:20001:r-x', 'user:20003:r-x', 'group::r-x', 'mask::r-x', 'other::---']);
    await storage.applyAccess(assetId, { public: true, uids: [] });
    expect(modeOf(dir)).toBe(0o755);
    expect(acl()).toEqual(['user::rwx', 'group::r-x', 'other::r-x']);
    await storage.closeAssetDir(assetId);
    expect(modeOf(dir)).toBe(0o700);
    await storage.closeAssetDir(`${assetId}x`);
    expect(await codeOf(storage.applyAccess('../home', { public: true, uids: [] }))).toBe(1005);
    await storage.removeAsset(assetId);
  });

  it('sets who may read and write a team folder (ADR 0018): an rwx entry per member, default ACLs beneath, none closes it', async () => {
    const { storage, root } = subject();
    const teamId = `t${randomBytes(6).toString('hex')}`;
    expect(await storage.applyTeamAccess(teamId, [20001])).toBe(false);
    expect(await storage.applyTeamAccess(teamId, [20003, 20001, 20001], { create: true })).toBe(true);
    const teams = path.join(root, 'teams');
    const dir = path.join(teams, teamId);
    expect(modeOf(teams)).toBe(0o711);
    const acl = () => execFileSync('getfacl', ['--numeric', '--omit-header', dir], { encoding: 'utf8' }).trim().split('\n');
    const defaults = ['default:user::rwx', 'default:group::rwx', 'default:other::rwx'];
    expect(acl()).toEqual(['user::rwx', 'user:20001:rwx', 'user:20003:rwx', 'group::---', 'mask::rwx', 'other::---', ...defaults]);
    expect(await storage.teamDirs()).toContain(teamId);
    // A member leaves: exactly the rest; the last one leaves (or the team is dissolved): closed, kept.
    await storage.applyTeamAccess(teamId, [20003]);
    expect(acl()).toEqual(['user::rwx', 'user:20003:rwx', 'group::---', 'mask::rwx', 'other::---', ...defaults]);
    await storage.applyTeamAccess(teamId, []);
    expect(modeOf(dir)).toBe(0o700);
    expect(acl()).toEqual(['user::rwx', 'group::---', 'other::---', ...defaults]);
    expect(await codeOf(storage.applyTeamAccess('../home', [20001]))).toBe(1005);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('adopts a copy a sync put into the area: its manifest beside it, read-only, once', async () => {
    const { storage } = subject();
    const { assetId, versionId } = fresh();
    await storage.applyAccess(assetId, { public: true, uids: [] }, { create: true });
    const dir = path.join(area(), assetId, versionId);
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'sub/x.txt'), 'copied');
    const manifest = `${sha256('copied')}  sub/x.txt\n`;
    expect(await storage.versionManifest(assetId, versionId)).toBeNull();
    await storage.adoptCopy(assetId, versionId, manifest);
    expect(await storage.versionManifest(assetId, versionId)).toBe(manifest);
    expect([modeOf(dir), modeOf(path.join(dir, 'sub/x.txt')), modeOf(`${dir}.sha256`)]).toEqual([0o555, 0o444, 0o444]);
    await storage.adoptCopy(assetId, versionId, 'something else\n');
    expect(await storage.versionManifest(assetId, versionId)).toBe(manifest);
    await storage.removeAsset(assetId);
  });

  it(`a home whose folder is swapped for a link to outside over and over (${raceSeconds} s): nothing outside is read, streamed, written or snapshotted`, async () => {
    const { storage } = subject();
    const { account, assetId } = fresh();
    await storage.ensureHome(account);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-ct-race-'));
    try {
      prepareRace(home(account), outside);
      const before = treeOf(outside);
      const seen = { reads: 0, insideReads: 0, streams: 0, writes: 0, snapshots: 0, goodSnapshots: 0, leaked: [] as string[] };
      const swapper = startSwapper(home(account), raceSeconds * 5 + 5);
      const start = Date.now();
      // At least `raceSeconds`, and on until every operation got through a few times (a loaded machine).
      const going = () => Date.now() - start < raceSeconds * 1000 || (Math.min(seen.reads, seen.streams, seen.writes, seen.snapshots) < 4 && Date.now() - start < raceSeconds * 5000);
      const loop = async (op: (i: number) => Promise<void>) => {
        for (let i = 0; going(); i++) await op(i).catch(() => {});
      };
      const versions: string[] = [];
      await Promise.all([
        loop(async () => {
          const r = await storage.readFile(account, '/race/f.txt', 0, 100);
          seen.reads++;
          const body = r?.bytes.toString('utf8') ?? '';
          if (body === 'inside') seen.insideReads++;
          if (body.includes('OUTSIDE')) seen.leaked.push(`read: ${body}`);
        }),
        loop(async () => {
          const o = await storage.openFile(account, '/race/f.txt');
          seen.streams++;
          const body = o ? await text(o.stream) : '';
          if (body.includes('OUTSIDE')) seen.leaked.push(`stream: ${body}`);
        }),
        loop(async (i) => {
          seen.writes++;
          await storage.writeFile(account, `/race/up-${i}.txt`, Readable.from([Buffer.from('written by the racer')]));
        }),
        loop(async (i) => {
          const versionId = `v${i}x${randomBytes(3).toString('hex')}`;
          versions.push(versionId);
          seen.snapshots++;
          await storage.snapshot(account, '/race', assetId, versionId, () => {});
          seen.goodSnapshots++;
        }),
        loop(async () => {
          const st = await storage.stat(account, '/race/outside-only.txt');
          if (st) seen.leaked.push('stat saw outside-only.txt');
        }),
      ]);
      const stopped = await swapper.stop();
      // The race was real: the swapper ran the whole time and each operation got through.
      expect(stopped.exit).toBe(0);
      expect(stopped.swaps).toBeGreaterThan(500);
      expect(Math.min(seen.reads, seen.streams, seen.writes, seen.snapshots)).toBeGreaterThanOrEqual(4);
      expect(seen.insideReads).toBeGreaterThan(0);
      expect(seen.leaked).toEqual([]);
      expect(treeOf(outside)).toEqual(before);
      // Every version that was made holds what was inside, never the outside's files.
      for (const v of versions) {
        const dir = path.join(area(), assetId, v);
        if (!fs.existsSync(dir)) continue;
        const tree = treeOf(dir);
        expect(Object.keys(tree).filter((f) => f === 'outside-only.txt' || f === 'victim.txt')).toEqual([]);
        if (tree['f.txt']) expect(tree['f.txt']).toBe(sha256('inside'));
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
      await storage.removeAsset(assetId);
    }
  }, 120_000);
}
