/** Output: tables for people (the default), `--json` for scripts (the API's data as it came). */

/** Columns of CJK text take two cells each in a terminal. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    w += (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x20000 && c <= 0x3fffd) ? 2 : 1;
  }
  return w;
}

const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - displayWidth(s)));

export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c)).replace(/\s*\n\s*/g, ' ')));
  const widths = headers.map((h, i) => Math.max(displayWidth(h), ...cells.map((r) => displayWidth(r[i] ?? ''))));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]))).join('  ').trimEnd();
  return [line(headers), ...cells.map(line)].join('\n') + '\n';
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

export function formatTime(ms: number | null | undefined): string {
  if (!ms) return '-';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export const printJson = (v: unknown) => process.stdout.write(JSON.stringify(v, null, 2) + '\n');

/** A progress bar on a terminal (rewritten in place); elsewhere a line every 10 % so logs stay short. */
export function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr) {
  let lastStep = -1;
  const started = Date.now();
  return {
    update(loaded: number, total: number) {
      const pct = total === 0 ? 100 : Math.floor((loaded / total) * 100);
      if (stream.isTTY) {
        const width = 30;
        const fill = Math.round((pct / 100) * width);
        const secs = (Date.now() - started) / 1000;
        const rate = secs > 0 ? formatBytes(loaded / secs) + '/s' : '';
        stream.write(`\r${label} [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${String(pct).padStart(3)}% ${formatBytes(loaded)}/${formatBytes(total)} ${rate}\x1b[K`);
      } else {
        const step = Math.floor(pct / 10);
        if (step > lastStep) {
          lastStep = step;
          stream.write(`${label} ${pct}%\n`);
        }
      }
    },
    done() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
