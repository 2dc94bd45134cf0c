/**
 * Slurm hostlist expressions (`gpu[01-03,07],login1`) → host names, in order. Version-independent: every
 * slurmrestd version reports a job's nodes this way.
 */
export function expandHostlist(expr: string | null | undefined): string[] {
  const out: string[] = [];
  for (const part of splitTopLevel(expr ?? '')) {
    const m = /^([^[]*)\[([^\]]+)\](.*)$/.exec(part);
    if (!m) {
      if (part) out.push(part);
      continue;
    }
    const [, prefix, ranges, rest] = m;
    for (const r of ranges.split(',')) {
      const [lo, hi] = r.split('-');
      if (hi === undefined) {
        out.push(...expandHostlist(`${prefix}${lo}${rest}`));
        continue;
      }
      const a = Number(lo);
      const b = Number(hi);
      for (let n = a; n <= b && n - a < 100_000; n++) out.push(...expandHostlist(`${prefix}${String(n).padStart(lo.length, '0')}${rest}`));
    }
  }
  return out;
}

/** Splits on commas outside brackets. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur.trim());
  return parts;
}
