import { describe, expect, it } from 'vitest';
import { allPages, toCsv } from './csv';

describe('toCsv', () => {
  it('starts with the UTF-8 BOM, ends lines with CRLF and keeps Chinese as is (what Excel opens without garbling)', () => {
    const text = toCsv(['订单编号', '金额（元）'], [['DD202603010001', '128.00']]);
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(text.slice(1)).toBe('订单编号,金额（元）\r\nDD202603010001,128.00\r\n');
    // As bytes: EF BB BF, then UTF-8.
    expect([...new TextEncoder().encode(text).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it('quotes a cell with a comma, a quote or a line break; empty for null', () => {
    expect(toCsv(['a', 'b', 'c', 'd'], [['深圳, 广州', '说"好"', '一\n二', null]]).split('\r\n')[1]).toBe('"深圳, 广州","说""好""","一\n二",');
  });

  it('keeps formula-like text as text (a leading \'), but not negative numbers', () => {
    expect(toCsv(['x'], [['=HYPERLINK("x")'], ['+1+1'], ['@SUM(A1)'], ['-12.50'], ['-abc'], [-3]]).slice(1).split('\r\n').slice(1, -1)).toEqual([
      `"'=HYPERLINK(""x"")"`,
      "'+1+1",
      "'@SUM(A1)",
      '-12.50',
      "'-abc",
      '-3',
    ]);
  });
});

describe('allPages', () => {
  const rows = Array.from({ length: 250 }, (_, i) => ({ id: String(i) }));
  const fetch = async (q: { pageNum: number; pageSize: number; type: string }) => {
    expect(q.type).toBe('charge');
    return { list: rows.slice((q.pageNum - 1) * q.pageSize, q.pageNum * q.pageSize), total: rows.length, pageNum: q.pageNum, pageSize: q.pageSize };
  };

  it('pages through every row with the same filters, 100 a page', async () => {
    const asked: number[] = [];
    const got = await allPages(async (q: { pageNum: number; pageSize: number; type: string }) => (asked.push(q.pageNum), fetch(q)), { type: 'charge' });
    expect(got.rows.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(got.truncated).toBe(false);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('stops at the cap and says the export was cut', async () => {
    const got = await allPages(fetch, { type: 'charge' }, 150);
    expect(got.rows).toHaveLength(150);
    expect(got.truncated).toBe(true);
  });
});
