import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTar, TarError, type TarEntry } from './tar-reader';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-tar-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const FORMATS = ['pax', 'gnu', 'ustar'] as const;
const long = `${'d'.repeat(120)}/${'f'.repeat(130)}.txt`;
/** Each format's archive as GNU tar wrote it, made once for the file (reading it is what the cases test). */
const archives = new Map<string, Buffer>();

beforeAll(() => {
  const src = path.join(tmp, 'src');
  fs.mkdirSync(path.join(src, path.dirname(long)), { recursive: true });
  fs.writeFileSync(path.join(src, long), 'long name');
  fs.writeFileSync(path.join(src, 'big.bin'), Buffer.alloc(5000, 7));
  fs.symlinkSync('big.bin', path.join(src, 'link'));
  for (const format of FORMATS) {
    const file = path.join(tmp, `${format}.tar`);
    const names = format === 'ustar' ? ['big.bin', 'link'] : ['.'];
    execFileSync('tar', [`--format=${format}`, '-cf', file, '-C', src, ...names]);
    archives.set(format, fs.readFileSync(file));
  }
});

/** The archive in chunks of `chunk` bytes from memory: the borders are the point, not the disk (1-byte file reads made this case take seconds). */
async function* chunksOf(buf: Buffer, chunk: number) {
  for (let at = 0; at < buf.length; at += chunk) yield buf.subarray(at, at + chunk);
}

async function entriesOf(source: string | Buffer, chunk = 1000) {
  const out: (TarEntry & { content: string })[] = [];
  const input = typeof source === 'string' ? fs.createReadStream(source, { highWaterMark: chunk }) : chunksOf(source, chunk);
  await readTar(input, async (e, body) => {
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c);
    out.push({ ...e, content: Buffer.concat(parts).toString() });
  });
  return out;
}

describe('tar reader', () => {
  it.each(FORMATS)('reads what GNU tar writes (%s): long names, folders, links, contents across chunk borders', async (format) => {
    for (const chunk of [1, 511, 4096]) {
      const got = await entriesOf(archives.get(format)!, chunk);
      const big = got.find((e) => e.name === 'big.bin')!;
      expect(big.type).toBe('file');
      expect(big.content).toBe(Buffer.alloc(5000, 7).toString());
      expect(got.find((e) => e.name === 'link')).toMatchObject({ type: 'symlink', linkname: 'big.bin' });
      if (format !== 'ustar') expect(got.find((e) => e.name === long)?.content).toBe('long name');
    }
  });

  it('reads an archive from a file stream', async () => {
    const got = await entriesOf(path.join(tmp, 'pax.tar'), 4096);
    expect(got.find((e) => e.name === 'big.bin')?.content).toBe(Buffer.alloc(5000, 7).toString());
    expect(got.find((e) => e.name === long)?.content).toBe('long name');
  });

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
