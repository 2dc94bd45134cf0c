import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { piecesOf } from './write';

// writeAt reads Node streams through piecesOf: each piece as it arrived (never joined with the ones queued
// behind it, as `for await` on the stream does), with backpressure, errors and early exits as `for await` has them.
describe('piecesOf', () => {
  it('passes every piece as its own Buffer, however many queue up while the consumer is busy', async () => {
    const src = new PassThrough({ highWaterMark: 1024 * 1024 });
    const sent = Array.from({ length: 40 }, (_, i) => Buffer.alloc(1000, i));
    for (const b of sent) src.write(b);
    src.end();
    const got: Buffer[] = [];
    for await (const piece of piecesOf(src)) {
      got.push(piece);
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(got.map((b) => b.length)).toEqual(sent.map((b) => b.length));
    expect(Buffer.concat(got)).toEqual(Buffer.concat(sent));
  });

  it('pauses the stream once `high` bytes wait, and resumes it as they are taken', async () => {
    const src = new PassThrough();
    const pieces = piecesOf(src, 3000)[Symbol.asyncIterator]();
    for (let i = 0; i < 10; i++) src.write(Buffer.alloc(1000));
    src.end();
    await pieces.next();
    await new Promise((r) => setTimeout(r, 10));
    // Pieces 2–4 queued in piecesOf, the rest still in the stream's own buffer.
    expect(src.isPaused()).toBe(true);
    expect(src.readableLength).toBe(6000);
    let n = 1;
    while (!(await pieces.next()).done) n++;
    expect(n).toBe(10);
  });

  it('throws what the stream fails with, and a close without an end as premature', async () => {
    const failing = new Readable({ read() {} });
    failing.push(Buffer.from('a'));
    setTimeout(() => failing.destroy(new Error('cut')), 5);
    await expect((async () => { for await (const _ of piecesOf(failing)) void _; })()).rejects.toThrow('cut');
    const closed = new Readable({ read() {} });
    setTimeout(() => closed.destroy(), 5);
    await expect((async () => { for await (const _ of piecesOf(closed)) void _; })()).rejects.toThrow(/premature/i);
  });

  it('reads a stream that was paused before', async () => {
    const src = new PassThrough();
    src.pause();
    src.end(Buffer.from('abc'));
    const got: Buffer[] = [];
    for await (const piece of piecesOf(src)) got.push(piece);
    expect(Buffer.concat(got).toString()).toBe('abc');
  });

  it('destroys the stream when the consumer stops early', async () => {
    const src = new PassThrough();
    src.write(Buffer.from('x'));
    for await (const _ of piecesOf(src)) break;
    expect(src.destroyed).toBe(true);
  });
});
