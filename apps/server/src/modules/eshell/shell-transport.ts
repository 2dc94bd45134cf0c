/** One open terminal, whatever carries it (a local pty, an SSH channel). */
export interface ShellChannel {
  write(data: Buffer | string): void;
  resize(cols: number, rows: number): void;
  /** Flow control: stop/start reading the terminal's output while the browser's socket is backed up. */
  pause(): void;
  resume(): void;
  /** Hangs the terminal up; `onExit` follows. Safe to call more than once. */
  close(): void;
  onData(listener: (chunk: Buffer) => void): void;
  /** Once: the shell ended (its exit status when known) or the connection to it was lost (`error`). */
  onExit(listener: (how: { code: number | null; error?: string }) => void): void;
}

export interface ShellOpenOptions {
  cols: number;
  rows: number;
  /** Folder of the home to start in, as segments below it ([] = the home itself); already checked. */
  cwd: string[];
}

/** How a center's shell is opened for one user's account (docs/plan/10.md, "Web shell"). */
export interface ShellTransport {
  readonly kind: 'ssh' | 'local';
  open(opts: ShellOpenOptions): Promise<ShellChannel>;
}

/** A single-shot listener list: the first `emit` wins, later listeners get the recorded value at once. */
export class Once<T> {
  private value: { v: T } | undefined;
  private readonly listeners: ((v: T) => void)[] = [];
  on(l: (v: T) => void) {
    if (this.value) l(this.value.v);
    else this.listeners.push(l);
  }
  emit(v: T) {
    if (this.value) return;
    this.value = { v };
    for (const l of this.listeners.splice(0)) l(v);
  }
}
