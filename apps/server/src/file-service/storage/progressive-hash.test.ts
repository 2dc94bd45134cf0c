import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProgressiveHash } from './progressive-hash';

// The running upload hash, whose state and reads live in the hash thread (hash-thread.ts).
describe('ProgressiveHash', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-phash-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const CHUNK = 64 * 1024;
  const data = randomBytes(CHUNK * 5 + 123);
  const file = path.join(dir, 'data');
  fs.writeFileSync(file, data);
  const total = Math.ceil(data.length / CHUNK);
  const rangeOf = (n: number) => ({ start: (n - 1) * CHUNK, length: Math.min(CHUNK, data.length - (n - 1) * CHUNK) });
  const expected = createHash('sha256').update(data).digest('hex');

  it('hashes chunks in order as they complete, whatever order they arrive in', async () => {
    const h = new ProgressiveHash(file, total, rangeOf);
    const complete = new Set<number>();
    const isComplete = async (n: number) => complete.has(n);
    for (const n of [3, 1, 2, 6, 5, 4]) {
      complete.add(n);
      await h.advance(isComplete);
    }
    expect(h.next).toBe(total + 1);
    expect(await h.digest(isComplete)).toBe(expected);
  });

  it('answers null (the caller hashes the file) while a chunk is missing, and after dispose', async () => {
    const missing = new ProgressiveHash(file, total, rangeOf);
    expect(await missing.digest(async (n) => n !== 4)).toBeNull();
    const disposed = new ProgressiveHash(file, total, rangeOf);
    await disposed.advance(async (n) => n <= 2);
    disposed.dispose();
    expect(await disposed.digest(async () => true)).toBeNull();
  });

  it('keeps concurrent uploads apart in the one thread', async () => {
    const other = randomBytes(CHUNK * 2);
    const otherFile = path.join(dir, 'other');
    fs.writeFileSync(otherFile, other);
    const a = new ProgressiveHash(file, total, rangeOf);
    const b = new ProgressiveHash(otherFile, 2, (n) => ({ start: (n - 1) * CHUNK, length: CHUNK }));
    const [da, db] = await Promise.all([a.digest(async () => true), b.digest(async () => true)]);
    expect(da).toBe(expected);
    expect(db).toBe(createHash('sha256').update(other).digest('hex'));
  });
});
