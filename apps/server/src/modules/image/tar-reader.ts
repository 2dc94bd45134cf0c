/** Thrown for an archive that is not a readable tar; the message is Chinese and says what is wrong. */
export class TarError extends Error {}

export interface TarEntry {
  /** Path inside the archive, without a leading `./`. */
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink' | 'other';
  size: number;
  linkname: string;
}

const BLOCK = 512;

/** Reads exact byte counts from an async stream of chunks. */
class ByteReader {
  private buf: Buffer = Buffer.alloc(0);
  private done = false;

  constructor(private readonly it: AsyncIterator<Buffer>) {}

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.it.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    return true;
  }

  /** Exactly n bytes, or null at a clean end before the first byte; a short read in between throws. */
  async read(n: number): Promise<Buffer | null> {
    while (this.buf.length < n) {
      if (!(await this.fill())) {
        if (this.buf.length === 0) return null;
        throw new TarError('文件不完整（tar 在中途结束）');
      }
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.fill())) throw new TarError('文件不完整（tar 在中途结束）');
      const take = Math.min(left, this.buf.length);
      this.buf = this.buf.subarray(take);
      left -= take;
    }
  }

  /** n bytes as chunks (no copy into one buffer). */
  async *chunks(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.fill())) throw new TarError('文件不完整（tar 在中途结束）');
      const take = Math.min(left, this.buf.length);
      const out = this.buf.subarray(0, take);
      this.buf = this.buf.subarray(take);
      left -= take;
      yield out;
    }
  }
}

function text(b: Buffer, start: number, len: number) {
  const f = b.subarray(start, start + len);
  const nul = f.indexOf(0);
  return (nul >= 0 ? f.subarray(0, nul) : f).toString('utf8');
}

function octal(b: Buffer, start: number, len: number, what: string): number {
  const f = b.subarray(start, start + len);
  // GNU base-256 for sizes of 8 GiB and more.
  if (f[0] & 0x80) {
    let n = 0;
    for (let i = 1; i < f.length; i++) n = n * 256 + f[i];
    return n;
  }
  const s = text(b, start, len).trim();
  if (!s) return 0;
  if (!/^[0-7]+$/.test(s)) throw new TarError(`不是有效的 tar 文件（${what}字段损坏）`);
  return parseInt(s, 8);
}

function checksumOk(h: Buffer): boolean {
  const field = text(h, 148, 8).trim();
  if (!/^[0-7]+$/.test(field)) return false;
  const stored = parseInt(field, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
  return sum === stored;
}

/** PAX records `<len> <key>=<value>\n`. */
function parsePax(b: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < b.length) {
    const space = b.indexOf(0x20, i);
    if (space < 0) break;
    const len = Number(b.subarray(i, space).toString('ascii'));
    if (!Number.isInteger(len) || len <= 0 || i + len > b.length) throw new TarError('不是有效的 tar 文件（PAX 扩展头损坏）');
    const record = b.subarray(space + 1, i + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += len;
  }
  return out;
}

const clean = (name: string) => name.replace(/^\.\//, '').replace(/\/+$/, '');
/** Extension headers are read into memory: they are names and attributes, never large. */
const MAX_META = 1024 * 1024;

/**
 * A streaming tar reader (ustar, PAX and GNU long names): calls `onEntry` for each entry with its body as
 * chunks, which it must consume before returning. Memory stays flat whatever the archive's size.
 */
export async function readTar(source: AsyncIterable<Buffer>, onEntry: (e: TarEntry, body: AsyncIterable<Buffer>) => Promise<void>): Promise<void> {
  const r = new ByteReader(source[Symbol.asyncIterator]());
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  let entries = 0;
  for (;;) {
    const h = await r.read(BLOCK);
    if (!h) {
      if (entries === 0) throw new TarError('文件为空');
      return;
    }
    if (h.every((x) => x === 0)) return;
    if (!checksumOk(h)) throw new TarError(entries === 0 ? '不是 tar 文件' : '不是有效的 tar 文件（头部校验和不符）');
    entries++;
    const flag = String.fromCharCode(h[156] || 0x30);
    const headerSize = octal(h, 124, 12, '大小');
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      const size = headerSize;
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (size > MAX_META) throw new TarError('不是有效的 tar 文件（扩展头过大）');
      const data = (await r.read(padded)) ?? Buffer.alloc(0);
      const body = data.subarray(0, size);
      if (flag === 'x') pax = { ...pax, ...parsePax(body) };
      else if (flag === 'L') longName = text(body, 0, body.length);
      else if (flag === 'K') longLink = text(body, 0, body.length);
      continue;
    }
    const size = pax.size !== undefined ? Number(pax.size) : headerSize;
    if (!Number.isSafeInteger(size) || size < 0) throw new TarError('不是有效的 tar 文件（大小字段损坏）');
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    // POSIX ustar ("ustar\0") has a name prefix field; old GNU ("ustar  ") keeps other data there.
    const prefix = text(h, 257, 6) === 'ustar' ? text(h, 345, 155) : '';
    const name = clean(pax.path ?? longName ?? (prefix ? `${prefix}/${text(h, 0, 100)}` : text(h, 0, 100)));
    const linkname = pax.linkpath ?? longLink ?? text(h, 157, 100);
    pax = {};
    longName = longLink = undefined;
    const type: TarEntry['type'] = flag === '0' || flag === '7' ? 'file' : flag === '5' ? 'dir' : flag === '2' ? 'symlink' : flag === '1' ? 'hardlink' : 'other';
    const entrySize = type === 'file' ? size : 0;
    let consumed = 0;
    const body = (async function* () {
      for await (const c of r.chunks(entrySize)) {
        consumed += c.length;
        yield c;
      }
    })();
    await onEntry({ name, type, size: entrySize, linkname }, body);
    // Whatever the handler left unread, then the padding to the block.
    await r.skip(padded - consumed);
  }
}
