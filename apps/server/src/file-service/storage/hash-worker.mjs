// The file service's hashing thread (see hash-thread.ts): SHA-256 states of running uploads, fed with byte
// ranges of their data files. Plain JavaScript so it loads the same under tsx, vitest and plain node.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';

const states = new Map();
// One read buffer for the thread: reads are synchronous here, one range at a time.
const buf = Buffer.allocUnsafe(4 * 1024 * 1024);

function feed({ id, file, start, length }) {
  let h = states.get(id);
  if (!h) states.set(id, (h = createHash('sha256')));
  const fd = fs.openSync(file, 'r');
  try {
    for (let done = 0; done < length; ) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, length - done), start + done);
      if (!n) throw new Error('short read');
      h.update(buf.subarray(0, n));
      done += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

parentPort.on('message', (m) => {
  try {
    let value;
    if (m.op === 'feed') feed(m);
    else if (m.op === 'digest') {
      value = (states.get(m.id) ?? createHash('sha256')).digest('hex');
      states.delete(m.id);
    } else states.delete(m.id); // 'drop'
    parentPort.postMessage({ seq: m.seq, value });
  } catch (e) {
    // A failed feed leaves a state that no longer matches its file: drop it, the caller starts over.
    states.delete(m.id);
    parentPort.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
  }
});
