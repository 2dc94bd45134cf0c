import { Worker } from 'node:worker_threads';

type Request = { op: 'feed'; id: number; file: string; start: number; length: number } | { op: 'digest' | 'drop'; id: number };

/**
 * One thread per process that keeps the running SHA-256 of uploads (ProgressiveHash) and reads their data
 * files back to feed them. Hashing 2 GiB is ~1.2 CPU-s plus the read; on the main thread that competed with
 * receiving and writing chunks, which kept the event loop of the file service at 100 % of one core for the
 * whole upload (bench/upload). Here it runs beside it. Started on first use, never keeps the process alive;
 * if it dies, every pending call fails (the merge then hashes the file itself) and the next call starts a
 * new one.
 */
class HashThread {
  private worker: Worker | null = null;
  private seq = 0;
  /** Which thread is (or will next be) running: hash states live in one thread and die with it. */
  generation = 0;
  private readonly pending = new Map<number, { resolve: (v: string | undefined) => void; reject: (e: Error) => void }>();

  call(req: Request): Promise<string | undefined> {
    const worker = this.worker ?? this.start();
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      worker.postMessage({ ...req, seq });
    });
  }

  private start(): Worker {
    // No inherited --import/--cpu-prof flags: the thread loads one plain module.
    const worker = new Worker(new URL('./hash-worker.mjs', import.meta.url), { execArgv: [] });
    worker.unref();
    worker.on('message', (m: { seq: number; value?: string; error?: string }) => {
      const p = this.pending.get(m.seq);
      this.pending.delete(m.seq);
      if (m.error !== undefined) p?.reject(new Error(m.error));
      else p?.resolve(m.value);
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.generation++;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`hash thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

export const hashThread = new HashThread();
