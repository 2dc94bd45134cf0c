/**
 * Web Worker: hashes the file it is given and reports progress, so hashing a large file never freezes the
 * page. Protocol — in: `{ file: Blob }`; out: `{ type: 'progress', loaded, total }`, then
 * `{ type: 'done', hash }` or `{ type: 'error', message }`.
 */
import { hashBlob } from './hash-core';

export type HashWorkerRequest = { file: Blob };
export type HashWorkerMessage =
  | { type: 'progress'; loaded: number; total: number }
  | { type: 'done'; hash: string }
  | { type: 'error'; message: string };

// Typed loosely on purpose: the console's program uses the DOM lib, which clashes with the WebWorker lib.
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<HashWorkerRequest>) => void) | null;
  postMessage: (msg: HashWorkerMessage) => void;
};

let lastPost = 0;
scope.onmessage = (e) => {
  hashBlob(e.data.file, {
    onProgress: ({ loaded, total }) => {
      // Throttled: a 2 GiB file has 512 slices; the page only needs a few updates a second.
      const now = Date.now();
      if (now - lastPost < 100 && loaded < total) return;
      lastPost = now;
      scope.postMessage({ type: 'progress', loaded, total });
    },
  }).then(
    (hash) => scope.postMessage({ type: 'done', hash }),
    (err: unknown) => scope.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
  );
};
