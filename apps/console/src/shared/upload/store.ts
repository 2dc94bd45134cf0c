/**
 * Upload tasks: what the header panel shows and what runs them.
 *
 * The zustand state holds only plain, renderable task records; the Files, AbortControllers and cached
 * hashes live in a module map beside it (they are neither serialisable nor something React should diff).
 * Records are not persisted on purpose — the spec says a refresh clears them — but because the uploader's
 * identifier is stable per file and destination, adding the same file again after a refresh resumes; and the
 * panel lists what the file services still hold (interrupted-uploads.tsx), whose 继续 enqueues the picked file
 * with the staged upload's identifier.
 */
import { UPLOAD_REFRESH_WARNING } from '@suanli/contracts';
import { create } from 'zustand';
import type { UploadFile, UploadOptions, UploadResult } from './uploader';

export type UploadStatus = 'waiting' | 'uploading' | 'success' | 'error';

export interface UploadTask {
  id: string;
  /** File name. */
  name: string;
  /** Target directory (user-visible path on the center). */
  path: string;
  /** Bytes. */
  size: number;
  /** 0–100. */
  progress: number;
  status: UploadStatus;
  /** Why it failed (shown on hover), or 已取消. */
  error?: string;
  centerId?: string;
  centerName?: string;
}

/** Where a batch goes: one sub-center's file service. */
export interface UploadTarget {
  baseUrl: string;
  centerId: string;
  centerName?: string;
  /** A team's folder on the center (`team:<id>`, sent as `x-file-space`); absent: the user's home. */
  space?: string;
  /** Called for each file of the batch the server confirmed (the storage page refreshes its listing). */
  onUploaded?: (dir: string) => void;
}

export interface UploadItem {
  file: UploadFile;
  /** Target directory for this file (folder uploads give each file its own). */
  dir: string;
  /** The staged upload this file continues (继续 on an interrupted upload), when not the one the file derives. */
  identifier?: string;
}

interface UploadState {
  tasks: UploadTask[];
  /** The number of tasks, kept explicitly: the panel opens whenever it changes. */
  count: number;

  add(task: UploadTask | UploadTask[]): void;
  remove(id: string): void;
  /** Merges `patch` into the task with that id. */
  update(id: string, patch: Partial<Omit<UploadTask, 'id'>>): void;
  /** Queues files for upload; returns the ids of the tasks created. */
  enqueue(items: UploadItem[], target: UploadTarget): string[];
  /** Re-queues a failed task; the upload resumes from what the server already holds. */
  retry(id: string): void;
  /** Stops a waiting or running task (it becomes 失败/已取消 and can be retried). */
  cancel(id: string): void;
  /** Drops the records of finished (successful) tasks. */
  clearFinished(): void;
}

export const CANCELLED_MESSAGE = '已取消';
/** Files uploaded at once; each has UPLOAD_CONCURRENCY chunks in flight. */
export const MAX_PARALLEL_TASKS = 2;

export const isActive = (t: Pick<UploadTask, 'status'>) => t.status === 'waiting' || t.status === 'uploading';
export const selectRunningCount = (s: { tasks: UploadTask[] }) => s.tasks.reduce((n, t) => n + (isActive(t) ? 1 : 0), 0);

// ---- runner dependencies (swappable in tests) -------------------------------------------------------------

export interface UploadRunnerDeps {
  upload: (opts: UploadOptions) => Promise<UploadResult>;
  hash: ((file: UploadFile, signal: AbortSignal) => Promise<string>) | null;
  maxParallel: number;
}

// The uploader and the hash (hash-wasm) load with the first upload: the header's task panel reads this store
// on every signed-in page, and they are not needed to show it (docs/performance.md).
const defaultDeps: UploadRunnerDeps = {
  upload: (opts) => import('./uploader').then((m) => m.uploadFile(opts)),
  hash: (file, signal) => import('./hash').then((m) => m.hashInWorker(file, { signal })),
  maxParallel: MAX_PARALLEL_TASKS,
};
const deps: UploadRunnerDeps = { ...defaultDeps };

/**
 * Tests swap the runner's parts here. The token, the client headers and session expiry are the transport's
 * (shared/http/transport.ts), configured once by the app.
 */
export function configureUploads(patch: Partial<UploadRunnerDeps>): void {
  Object.assign(deps, patch);
}

interface Runtime {
  file: UploadFile;
  target: UploadTarget;
  /** Same file, same destination, same center: used to refuse a duplicate while one is active. */
  key: string;
  controller?: AbortController;
  /** Kept across retries so a retried task never re-hashes. */
  hash?: string;
  identifier?: string;
}
const runtimes = new Map<string, Runtime>();
let seq = 0;
const newId = () => `upload-${Date.now().toString(36)}-${(seq++).toString(36)}`;
const fileKey = (file: UploadFile, dir: string, target: UploadTarget) =>
  JSON.stringify([target.centerId, target.space ?? '', dir, file.name, file.size, file.lastModified ?? 0]);

export const useUploadStore = create<UploadState>()((set, get) => ({
  tasks: [],
  count: 0,

  add(task) {
    const list = Array.isArray(task) ? task : [task];
    if (list.length === 0) return;
    set((s) => {
      const tasks = [...s.tasks, ...list];
      return { tasks, count: tasks.length };
    });
  },

  remove(id) {
    const rt = runtimes.get(id);
    rt?.controller?.abort();
    runtimes.delete(id);
    set((s) => {
      const tasks = s.tasks.filter((t) => t.id !== id);
      return tasks.length === s.tasks.length ? s : { tasks, count: tasks.length };
    });
    pump();
  },

  update(id, patch) {
    set((s) => ({ tasks: s.tasks.map((t) => (t.id === id ? { ...t, ...patch, id } : t)) }));
  },

  enqueue(items, target) {
    const activeKeys = new Set(
      get()
        .tasks.filter(isActive)
        .map((t) => runtimes.get(t.id)?.key),
    );
    const created: UploadTask[] = [];
    for (const { file, dir, identifier } of items) {
      const key = fileKey(file, dir, target);
      // The same file into the same place twice at once would race on one chunk set; the first one wins.
      if (activeKeys.has(key)) continue;
      activeKeys.add(key);
      const id = newId();
      runtimes.set(id, { file, target, key, identifier });
      created.push({
        id,
        name: file.name,
        path: dir,
        size: file.size,
        progress: 0,
        status: 'waiting',
        centerId: target.centerId,
        centerName: target.centerName,
      });
    }
    get().add(created);
    pump();
    return created.map((t) => t.id);
  },

  retry(id) {
    const task = get().tasks.find((t) => t.id === id);
    if (!task || task.status !== 'error' || !runtimes.has(id)) return;
    get().update(id, { status: 'waiting', error: undefined });
    pump();
  },

  cancel(id) {
    const task = get().tasks.find((t) => t.id === id);
    if (!task || !isActive(task)) return;
    const rt = runtimes.get(id);
    if (rt?.controller) rt.controller.abort();
    // A running task also ends up here through its rejected promise; marking now makes the UI immediate.
    get().update(id, { status: 'error', error: CANCELLED_MESSAGE });
    pump();
  },

  clearFinished() {
    set((s) => {
      const tasks = s.tasks.filter((t) => t.status !== 'success');
      for (const t of s.tasks) if (t.status === 'success') runtimes.delete(t.id);
      return { tasks, count: tasks.length };
    });
  },
}));

/** Starts waiting tasks while fewer than `maxParallel` are uploading. */
function pump(): void {
  const { tasks } = useUploadStore.getState();
  let running = tasks.filter((t) => t.status === 'uploading').length;
  for (const t of tasks) {
    if (running >= deps.maxParallel) break;
    if (t.status !== 'waiting' || !runtimes.has(t.id)) continue;
    running++;
    void run(t.id);
  }
}

async function run(id: string): Promise<void> {
  const store = useUploadStore.getState();
  const rt = runtimes.get(id);
  if (!rt) return;
  const controller = new AbortController();
  rt.controller = controller;
  store.update(id, { status: 'uploading', progress: 0, error: undefined });
  const task = store.tasks.find((t) => t.id === id);
  const dir = task?.path ?? '/';
  const hash = deps.hash;
  // A cancelled run may settle after a retry started a new one for the same task: only the current run
  // may write the task's state.
  const current = () => runtimes.get(id) === rt && rt.controller === controller && !controller.signal.aborted;
  try {
    await deps.upload({
      baseUrl: rt.target.baseUrl,
      space: rt.target.space,
      file: rt.file,
      targetDir: dir,
      identifier: rt.identifier,
      signal: controller.signal,
      hash: hash
        ? async (signal) => {
            if (rt.hash) return rt.hash;
            rt.hash = await hash(rt.file, signal);
            return rt.hash;
          }
        : undefined,
      onProgress: ({ percent }) => {
        if (!current()) return;
        // Never show 100 % before the server confirmed the merge.
        useUploadStore.getState().update(id, { progress: Math.min(percent, 99) });
      },
    });
    if (!current()) return;
    useUploadStore.getState().update(id, { status: 'success', progress: 100, error: undefined });
    rt.target.onUploaded?.(dir);
  } catch (err) {
    // Removed, or superseded by a retry: nothing to record.
    if (runtimes.get(id) !== rt || rt.controller !== controller) return;
    // uploader.ts's isAbortError, spelled out here so that the uploader stays out of the header's first load.
    if ((err as { name?: string } | null)?.name === 'AbortError' || controller.signal.aborted) {
      useUploadStore.getState().update(id, { status: 'error', error: CANCELLED_MESSAGE });
    } else {
      const message = err instanceof Error && err.message ? err.message : '上传失败';
      // A session refusal already went to the transport's session handler (sign in again).
      useUploadStore.getState().update(id, { status: 'error', error: message });
    }
  } finally {
    if (rt.controller === controller) rt.controller = undefined;
    pump();
  }
}

// ---- leaving the page while uploads run ---------------------------------------------------------------------

function onBeforeUnload(e: BeforeUnloadEvent): string {
  e.preventDefault();
  // Legacy browsers show this text; modern ones show their own generic prompt.
  e.returnValue = UPLOAD_REFRESH_WARNING;
  return UPLOAD_REFRESH_WARNING;
}

let guarded = false;
/** The listener exists only while something runs: a permanent one would keep the page out of bfcache. */
function syncUnloadGuard(running: number): void {
  if (typeof window === 'undefined') return;
  if (running > 0 && !guarded) window.addEventListener('beforeunload', onBeforeUnload);
  if (running === 0 && guarded) window.removeEventListener('beforeunload', onBeforeUnload);
  guarded = running > 0;
}
useUploadStore.subscribe((s) => syncUnloadGuard(selectRunningCount(s)));

/** Test helper: forget every task and runtime, and put the real runner back (`configureUploads` swaps it). */
export function resetUploads(): void {
  for (const rt of runtimes.values()) rt.controller?.abort();
  runtimes.clear();
  useUploadStore.setState({ tasks: [], count: 0 });
  Object.assign(deps, defaultDeps);
}
