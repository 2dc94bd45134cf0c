/**
 * Browser-side content hashing for uploads: runs in a dedicated Web Worker (one per file, terminated on
 * cancel), falling back to yielding inline hashing where `Worker` is unavailable.
 */
import { hashBlob, type HashProgress } from './hash-core';
import type { HashWorkerMessage } from './hash.worker';

export function hashInWorker(file: Blob, opts: { onProgress?: (p: HashProgress) => void; signal?: AbortSignal } = {}): Promise<string> {
  if (typeof Worker === 'undefined') return hashBlob(file, { ...opts, yieldEachSlice: true });
  return new Promise<string>((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new DOMException('已取消', 'AbortError'));
    // The literal `new Worker(new URL(..., import.meta.url))` form is what Vite recognises and bundles.
    const worker = new Worker(new URL('./hash.worker.ts', import.meta.url), { type: 'module' });
    const finish = () => {
      worker.terminate();
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      finish();
      reject(new DOMException('已取消', 'AbortError'));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = (e: MessageEvent<HashWorkerMessage>) => {
      const msg = e.data;
      if (msg.type === 'progress') opts.onProgress?.({ loaded: msg.loaded, total: msg.total });
      else if (msg.type === 'done') {
        finish();
        resolve(msg.hash);
      } else {
        finish();
        reject(new Error(msg.message));
      }
    };
    worker.onerror = (e) => {
      finish();
      reject(new Error(e.message || 'hash worker failed'));
    };
    worker.postMessage({ file });
  });
}
