import { describe, expect, it } from 'vitest';
import { contentDisposition, parseRange } from './download.reply';

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=5-', { start: 5, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-1000', { start: 0, end: 99 }],
    ['bytes=90-1000', { start: 90, end: 99 }],
    ['bytes=99-99', { start: 99, end: 99 }],
  ])('%s of 100 bytes', (h, r) => {
    expect(parseRange(h, 100)).toEqual(r);
  });

  it('is unsatisfiable past the end or for an empty suffix', () => {
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  });

  it('ignores what it does not serve (whole file)', () => {
    for (const h of [undefined, '', 'bytes=0-1,5-6', 'items=0-1', 'bytes=9-1', 'bytes=-', 'bytes=a-b']) expect(parseRange(h, 100)).toBeNull();
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    const cd = contentDisposition('训练 "日志";(1).txt');
    expect(cd).toMatch(/^attachment; filename="[^"\\;]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
    expect(decodeURIComponent(cd.split("UTF-8''")[1])).toBe('训练 "日志";(1).txt');
  });

  it('cannot be used to inject headers', () => {
    expect(contentDisposition('a\r\nSet-Cookie: x=1')).not.toMatch(/[\r\n]/);
  });
});
