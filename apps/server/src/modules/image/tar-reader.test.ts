import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTar, TarError, type TarEntry } from './tar-reader';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-tar-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function entriesOf(file: string, chunk = 1000) {
  const out: (TarEntry & { content: string })[] = [];
  await readTar(fs.createReadStream(file, { highWaterMark: chunk }), async (e, body) => {
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c);
    out.push({ ...e, content: Buffer.concat(parts).toString() });
  });
  return out;
}

describe('tar reader', () => {
  it('reads what GNU tar writes: PAX long names, folders, links, contents across chunk borders', async () => {
    const src = path.join(tmp, 'src');
    const long = `${'d'.repeat(120)}/${'f'.repeat(130)}.txt`;
    fs.mkdirSync(path.join(src, path.dirname(long)), { recursive: true });
    fs.writeFileSync(path.join(src, long), 'long name');
    fs.writeFileSync(path.join(src, 'big.bin'), Buffer.alloc(5000, 7));
    fs.symlinkSync('big.bin', path.join(src, 'link'));
    for (const format of ['pax', 'gnu', 'ustar']) {
      const file = path.join(tmp, `${format}.tar`);
      const names = format === 'ustar' ? ['big.bin', 'link'] : ['.'];
      execFileSync('tar', [`--format=${format}`, '-cf', file, '-C', src, ...names]);
      for (const chunk of [1, 511, 4096]) {
        const got = await entriesOf(file, chunk);
        const big = got.find((e) => e.name === 'big.bin')!;
        expect(big.type).toBe('file');
        expect(big.content).toBe(Buffer.alloc(5000, 7).toString());
        expect(got.find((e) => e.name === 'link')).toMatchObject({ type: 'symlink', linkname: 'big.bin' });
        if (format !== 'ustar') expect(got.find((e) => e.name === long)?.content).toBe('long name');
      }
    }
  }, 30_000); // runs GNU tar once per format: 2.5 s on a quiet machine, past 5 s on a loaded CI

  it('an entry left unread is skipped', async () => {
    const file = path.join(tmp, 'pax.tar');
    const names: string[] = [];
    await readTar(fs.createReadStream(file), async (e) => void names.push(e.name));
    expect(names).toContain('big.bin');
  });

  it('refuses what is not a tar, or a truncated one, with a Chinese reason', async () => {
    const junk = path.join(tmp, 'junk');
    fs.writeFileSync(junk, 'x'.repeat(2000));
    await expect(entriesOf(junk)).rejects.toThrow(new TarError('不是 tar 文件'));
    const cut = path.join(tmp, 'cut.tar');
    fs.writeFileSync(cut, fs.readFileSync(path.join(tmp, 'pax.tar')).subarray(0, 3000));
    await expect(entriesOf(cut)).rejects.toThrow(/不完整/);
    const empty = path.join(tmp, 'empty');
    fs.writeFileSync(empty, '');
    await expect(entriesOf(empty)).rejects.toThrow(/为空/);
  });
});
