import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors';
import { checkName, confine, openSpace, parseUserPath, userPathOf, type Space } from './paths';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as AppError).code;
  }
  return 0;
};
const codeAsync = async (p: Promise<unknown>) => p.then(() => 0, (e: AppError) => e.code);

describe('parseUserPath', () => {
  it('treats every path as relative to the home', () => {
    expect(parseUserPath('/')).toEqual([]);
    expect(parseUserPath('')).toEqual([]);
    expect(parseUserPath('/a/b')).toEqual(['a', 'b']);
    expect(parseUserPath('a//b/./c/')).toEqual(['a', 'b', 'c']);
    expect(parseUserPath('/etc/passwd')).toEqual(['etc', 'passwd']);
    expect(userPathOf(parseUserPath('a//b/'))).toBe('/a/b');
  });

  it.each(['..', '../x', 'a/../../x', 'a/..', '/a/b/../c', 'a\0b', 'a\\b', `${'x'.repeat(256)}`])('refuses %j with 1308', (p) => {
    expect(code(() => parseUserPath(p))).toBe(1308);
  });

  it('keeps names that merely contain dots', () => {
    expect(parseUserPath('/a..b/...')).toEqual(['a..b', '...']);
  });
});

describe('checkName', () => {
  it.each(['a/b', '/', '..', '.', '', '  ', 'a\\b', 'a\0', '.suanli-upload-1', 'x'.repeat(256)])('refuses %j', (n) => {
    expect(code(() => checkName(n))).toBe(1308);
  });
  it.each(['报告.pdf', '.bashrc', 'a..b', 'x'.repeat(255)])('accepts %j', (n) => {
    expect(checkName(n)).toBe(n);
  });
});

describe('confine', () => {
  let root: string;
  let space: Space;
  let outside: string;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-confine-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-confine-out-'));
    const home = path.join(root, 'home', 'u1');
    fs.mkdirSync(path.join(home, 'a'), { recursive: true });
    fs.writeFileSync(path.join(home, 'a', 'f.txt'), 'x');
    fs.symlinkSync(outside, path.join(home, 'out'));
    fs.symlinkSync(path.join(home, 'a'), path.join(home, 'in'));
    fs.symlinkSync(path.join(outside, 'nothing'), path.join(home, 'dangling'));
    fs.symlinkSync('../u2', path.join(home, 'sibling'));
    fs.mkdirSync(path.join(root, 'home', 'u2'));
    space = await openSpace(home);
  });
  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('resolves existing and missing paths inside the home', async () => {
    expect(await confine(space, [])).toEqual({ abs: space.realHome, real: space.realHome });
    expect(await confine(space, ['a', 'f.txt'])).toEqual({ abs: path.join(space.realHome, 'a/f.txt'), real: path.join(space.realHome, 'a/f.txt') });
    expect(await confine(space, ['a', 'new', 'deeper'])).toEqual({ abs: path.join(space.realHome, 'a/new/deeper'), real: null });
  });

  it('follows links that stay inside, reporting the real path', async () => {
    expect((await confine(space, ['in', 'f.txt'])).real).toBe(path.join(space.realHome, 'a/f.txt'));
  });

  it.each([['out'], ['out', 'x'], ['out', 'x', 'y'], ['dangling'], ['dangling', 'x'], ['sibling'], ['sibling', 'f']])('refuses %j (1308)', async (...segs) => {
    expect(await codeAsync(confine(space, segs))).toBe(1308);
  });
});
