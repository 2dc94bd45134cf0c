/**
 * Node-only helper (the upload benchmark): hashes a file with node:crypto in a worker thread — what the
 * browser does in its Web Worker (hash.worker.ts), so the uploader's own thread only sends chunks. Plugs
 * into the uploader's `hash` option; never imported by browser code.
 */
import { Worker } from 'node:worker_threads';

// Plain JavaScript evaluated in the worker: one reused 4 MiB read buffer, synchronous reads (its own thread).
const WORKER_SOURCE = `
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const h = createHash('sha256');
const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
const fd = fs.openSync(workerData.path, 'r');
try {
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)); ) h.update(buf.subarray(0, n));
} finally {
  fs.closeSync(fd);
}
parentPort.postMessage(h.digest('hex'));
`;

export function hashFileNode(path: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const aborted = () => signal?.reason ?? new DOMException('已取消', 'AbortError');
    if (signal?.aborted) return reject(aborted());
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path }, execArgv: [] });
    const onAbort = () => {
      void worker.terminate();
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    worker.once('message', (hex: string) => (settle(), resolve(hex)));
    worker.once('error', (err) => (settle(), reject(err)));
    worker.once('exit', (code) => (settle(), reject(new Error(`hash worker exited (${code})`))));
  });
}
