import { hashThread } from './hash-thread';

/**
 * SHA-256 of an upload's data file, fed chunk by chunk as chunks complete in order — while the rest of
 * the upload is still on the wire — so that the merge usually only has to finish the last chunks instead
 * of reading the whole file again. The state and the reading live in the hash thread (hash-thread.ts), off
 * the event loop that receives the chunks. State is in memory only: after a restart (or if the thread
 * dies) a new instance starts over from chunk 1 (the data is on disk, so it simply catches up). Feeding is
 * serialised per instance; `dispose` must be called when an instance is dropped before its digest.
 */
export class ProgressiveHash {
  private static ids = 0;
  private readonly id = ++ProgressiveHash.ids;
  private readonly generation = hashThread.generation;
  private chain: Promise<void> = Promise.resolve();
  private failed = false;
  /** The first chunk not hashed yet. */
  next = 1;

  constructor(
    private readonly file: string,
    private readonly totalChunks: number,
    private readonly rangeOf: (n: number) => { start: number; length: number },
  ) {}

  /** Hashes every chunk from `next` on for as long as `isComplete` says it is there. */
  advance(isComplete: (n: number) => Promise<boolean>): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        while (!this.failed && this.next <= this.totalChunks && (await isComplete(this.next))) {
          await this.call({ op: 'feed', id: this.id, file: this.file, ...this.rangeOf(this.next) });
          this.next++;
        }
      })
      .catch(() => {
        this.failed = true;
      });
    return this.chain;
  }

  /** The digest once every chunk is in, or null if feeding failed (the caller hashes the file instead). */
  async digest(isComplete: (n: number) => Promise<boolean>): Promise<string | null> {
    await this.advance(isComplete);
    if (this.failed || this.next <= this.totalChunks) return null;
    this.failed = true; // the thread's state is finalised and gone
    return (await this.call({ op: 'digest', id: this.id }).catch(() => null)) ?? null;
  }

  /** Frees the thread's state of an instance that will not reach its digest. */
  dispose() {
    if (this.failed) return;
    this.failed = true;
    void this.chain.then(() => hashThread.call({ op: 'drop', id: this.id }).catch(() => {}));
  }

  /** A call on this instance's state, refused once the thread holding it is gone or the instance is done. */
  private async call(req: Parameters<typeof hashThread.call>[0]) {
    if (this.failed && req.op === 'feed') throw new Error('hash disposed');
    if (hashThread.generation !== this.generation) throw new Error('hash thread restarted');
    return hashThread.call(req);
  }
}
