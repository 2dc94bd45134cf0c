import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../errors';
import { LocalAccountFs } from './account-fs';

const codeOf = async (p: Promise<unknown>) => p.then(() => 0, (e: AppError) => e.code ?? String(e));

// The space of one account: every operation resolves beneath the home without following links.
describe('LocalAccountFs', () => {
  let root: string;
  let outside: string;
  let home: string;
  let space: LocalAccountFs;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-afs-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-afs-out-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside');
    home = path.join(root, 'home', 'u1');
    fs.mkdirSync(path.join(home, 'a'), { recursive: true });
    fs.writeFileSync(path.join(home, 'a', 'f.txt'), 'x');
    fs.symlinkSync(outside, path.join(home, 'out'));
    fs.symlinkSync(path.join(home, 'a'), path.join(home, 'in'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(home, 'secret'));
    fs.symlinkSync(path.join(outside, 'nothing'), path.join(home, 'dangling'));
    space = new LocalAccountFs(home, path.join(root, '.uploads', 'u1'));
  });
  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('lists links as links, whatever they point to', async () => {
    const listed = Object.fromEntries((await space.list([])).map((e) => [e.name, e.stat.type]));
    expect(listed).toEqual({ a: 'dir', out: 'link', in: 'link', secret: 'link', dangling: 'link' });
  });

  it.each([[['out']], [['out', 'secret.txt']], [['in']], [['in', 'f.txt']], [['dangling', 'x']]])('never walks through the link in %j (1308 or not a directory)', async (segs) => {
    expect([1302, 1308]).toContain(await codeOf(space.list(segs)));
    expect([0, 1308]).toContain(await codeOf(space.stat(segs)));
    expect(await codeOf(space.openFile(segs))).not.toBe(0);
    expect(await codeOf(space.writeFile([...segs, 'new.txt'], (async function* () {})(), {}))).toBe(1308);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses to read a link to a file outside (not followed)', async () => {
    expect(await codeOf(space.openFile(['secret']))).toBe(1308);
  });

  it('removes a link as a link: what it points to stays', async () => {
    fs.symlinkSync(outside, path.join(home, 'gone'));
    await space.remove(['gone']);
    expect(fs.existsSync(path.join(home, 'gone'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside');
  });

  it('copies a directory with a link inside as a link (its target is never read)', async () => {
    fs.mkdirSync(path.join(home, 'c'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(home, 'c', 'l'));
    await space.copy(['c'], ['c2']);
    expect(fs.lstatSync(path.join(home, 'c2', 'l')).isSymbolicLink()).toBe(true);
  });

  it('writes through a temp file and leaves none behind when the stream fails', async () => {
    async function* failing() {
      yield Buffer.from('half');
      throw new Error('client went away');
    }
    await expect(space.writeFile(['a', 'w.txt'], failing(), {})).rejects.toThrow('client went away');
    expect(fs.readdirSync(path.join(home, 'a'))).toEqual(['f.txt']);
  });
});
