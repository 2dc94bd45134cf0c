/**
 * Incremental SHA-256 of a Blob, one slice at a time, so a multi-GiB file never sits in memory. Shared by
 * the Web Worker and by the inline fallback used where workers don't exist (tests, very old browsers).
 */
import { createSHA256 } from 'hash-wasm';

/** Big enough to amortise the WASM call, small enough to report progress often and stay light on memory. */
export const HASH_SLICE_BYTES = 4 * 1024 * 1024;

export interface HashProgress {
  loaded: number;
  total: number;
}

export async function hashBlob(
  blob: Blob,
  opts: { onProgress?: (p: HashProgress) => void; signal?: AbortSignal; sliceBytes?: number; yieldEachSlice?: boolean } = {},
): Promise<string> {
  const slice = opts.sliceBytes ?? HASH_SLICE_BYTES;
  const hasher = await createSHA256();
  hasher.init();
  for (let offset = 0; offset < blob.size; offset += slice) {
    if (opts.signal?.aborted) throw new DOMException('已取消', 'AbortError');
    const bytes = new Uint8Array(await blob.slice(offset, offset + slice).arrayBuffer());
    hasher.update(bytes);
    opts.onProgress?.({ loaded: Math.min(offset + slice, blob.size), total: blob.size });
    // On the main thread, give the event loop a turn between slices so the page keeps painting.
    if (opts.yieldEachSlice) await new Promise((r) => setTimeout(r, 0));
  }
  return hasher.digest('hex');
}
