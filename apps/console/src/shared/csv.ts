import type { Page, PageQuery } from '@suanli/contracts';

/** The UTF-8 byte-order mark: without it Excel reads a UTF-8 file as the system's code page (Chinese garbled). */
const BOM = '\uFEFF';

export type CsvCell = string | number | null | undefined;

/** A text a spreadsheet would run as a formula (`=…`, `+…`, `@…`, `-…` that is not a number). */
const FORMULA = /^[=+\-@\t\r]/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** One cell: quoted when it holds a comma, a quote or a line break; a formula-like text is kept as text. */
function cell(v: CsvCell): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (typeof v === 'string' && FORMULA.test(s) && !NUMBER.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A CSV file as Excel opens it correctly: UTF-8 with a BOM, comma-separated, CRLF line ends (RFC 4180), a
 * header row. Texts that a spreadsheet would evaluate (a task name starting with `=`) get a leading `'`.
 */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return BOM + [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Saves `text` as a file through the browser's download (no server round trip). */
export function downloadCsv(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // After the click has handed the URL to the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Rows one export takes at most (a page of the API is at most 100). */
export const EXPORT_MAX_ROWS = 10_000;

/**
 * Every row a paged list call answers for `query`, page by page (100 a page), up to `max`; `truncated` when
 * there were more. The same call and filters as the table on screen, so an export shows what the list shows.
 */
export async function allPages<Q extends PageQuery, Row>(fetch: (q: Q) => Promise<Page<Row>>, query: Omit<Q, 'pageNum' | 'pageSize'>, max = EXPORT_MAX_ROWS): Promise<{ rows: Row[]; truncated: boolean }> {
  const rows: Row[] = [];
  const pageSize = 100;
  for (let pageNum = 1; ; pageNum++) {
    const page = await fetch({ ...query, pageNum, pageSize } as Q);
    rows.push(...page.list);
    if (rows.length >= max) return { rows: rows.slice(0, max), truncated: page.total > max };
    if (page.list.length < pageSize || rows.length >= page.total) return { rows, truncated: false };
  }
}
