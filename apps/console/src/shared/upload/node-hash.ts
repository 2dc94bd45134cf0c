/**
 * Node-only helper (the upload benchmark): hashes a file with node:crypto. Plugs into the uploader's
 * `hash` option; never imported by browser code.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** One reused read buffer per hash: a fresh buffer per read (a read stream) is external memory V8 must collect. */
const READ_BYTES = 4 * 1024 * 1024;

export async function hashFileNode(path: string, signal?: AbortSignal): Promise<string> {
  const h = createHash('sha256');
  const fh = await open(path, 'r');
  const buf = Buffer.allocUnsafe(READ_BYTES);
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new DOMException('已取消', 'AbortError');
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (!bytesRead) break;
      h.update(buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}
