/**
 * Node-only helper (the upload benchmark): streams a file through node:crypto. Plugs into the uploader's
 * `hash` option; never imported by browser code.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export function hashFileNode(path: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    const stream = createReadStream(path, { highWaterMark: 4 * 1024 * 1024, signal });
    stream.on('data', (chunk) => h.update(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(h.digest('hex')));
  });
}
