import { UPLOAD_REFRESH_WARNING } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CANCELLED_MESSAGE, configureUploads, resetUploads, selectRunningCount, useUploadStore, type UploadTask } from './store';
import { RequestError } from '../http/transport';
import type { UploadOptions, UploadResult } from './uploader';

/** A controllable fake of the uploader: each call waits until the test settles it. */
function fakeUploader() {
  const calls: { opts: UploadOptions; resolve: (r: UploadResult) => void; reject: (e: unknown) => void }[] = [];
  const upload = vi.fn(
    (opts: UploadOptions) =>
      new Promise<UploadResult>((resolve, reject) => {
        opts.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        calls.push({ opts, resolve, reject });
      }),
  );
  return { upload, calls };
}
const ok: UploadResult = { entry: null, instant: false, sentChunks: [], identifier: 'x'.repeat(64) };
const flush = () => new Promise((r) => setTimeout(r, 0));
const file = (name: string, size = 10) => new File([new Uint8Array(size)], name, { lastModified: 1 });
const target = { baseUrl: 'http://fs', centerId: 'c1', centerName: '中心一' };
const task = (id: string, patch: Partial<UploadTask> = {}): UploadTask => ({
  id,
  name: `${id}.txt`,
  path: '/',
  size: 1,
  progress: 0,
  status: 'waiting',
  ...patch,
});
const state = () => useUploadStore.getState();
const byId = (id: string) => state().tasks.find((t) => t.id === id)!;

let fake: ReturnType<typeof fakeUploader>;
beforeEach(() => {
  resetUploads();
  fake = fakeUploader();
  configureUploads({ upload: fake.upload, hash: null, maxParallel: 2 });
});
afterEach(() => resetUploads());

describe('task records', () => {
  it('adds, updates by id (merging) and removes by id, keeping the count', () => {
    state().add(task('a'));
    state().add([task('b'), task('c')]);
    expect(state().count).toBe(3);

    state().update('b', { progress: 40, status: 'uploading' });
    expect(byId('b')).toMatchObject({ name: 'b.txt', progress: 40, status: 'uploading' });
    expect(byId('a').progress).toBe(0);

    state().remove('a');
    expect(state().tasks.map((t) => t.id)).toEqual(['b', 'c']);
    expect(state().count).toBe(2);
    state().remove('missing');
    expect(state().count).toBe(2);
  });

  it('counts waiting and uploading tasks as running', () => {
    state().add([task('a'), task('b', { status: 'uploading' }), task('c', { status: 'success' }), task('d', { status: 'error' })]);
    expect(selectRunningCount(state())).toBe(2);
  });
});

describe('running uploads', () => {
  it('runs at most maxParallel files, passes the target, and finishes with 成功 at 100 %', async () => {
    const uploaded: string[] = [];
    const ids = state().enqueue([{ file: file('a'), dir: '/x' }, { file: file('b'), dir: '/x' }, { file: file('c'), dir: '/y' }], { ...target, onUploaded: (dir) => uploaded.push(dir) });
    expect(ids).toHaveLength(3);
    await flush();
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[0].opts).toMatchObject({ baseUrl: 'http://fs', targetDir: '/x' });
    expect(byId(ids[2]).status).toBe('waiting');

    fake.calls[0].opts.onProgress?.({ loaded: 5, total: 10, percent: 50 });
    expect(byId(ids[0])).toMatchObject({ status: 'uploading', progress: 50 });
    fake.calls[0].opts.onProgress?.({ loaded: 10, total: 10, percent: 100 });
    expect(byId(ids[0]).progress).toBe(99); // 100 only once the merge answered

    fake.calls[0].resolve(ok);
    await flush();
    expect(byId(ids[0])).toMatchObject({ status: 'success', progress: 100 });
    expect(uploaded).toEqual(['/x']);
    expect(fake.calls).toHaveLength(3); // the third started when a slot freed up
    expect(fake.calls[2].opts.targetDir).toBe('/y');
  });

  it('refuses the same file into the same place while it is still active', async () => {
    const f = file('same');
    state().enqueue([{ file: f, dir: '/' }], target);
    const second = state().enqueue([{ file: f, dir: '/' }], target);
    expect(second).toEqual([]);
    expect(state().count).toBe(1);
  });

  it('marks a failure with its message and retries it on demand (resuming through the uploader)', async () => {
    const [id] = state().enqueue([{ file: file('a'), dir: '/' }], target);
    await flush();
    fake.calls[0].reject(new RequestError('business', '存储空间不足', 1309));
    await flush();
    expect(byId(id)).toMatchObject({ status: 'error', error: '存储空间不足' });

    state().retry(id);
    await flush();
    expect(fake.calls).toHaveLength(2);
    expect(byId(id).status).toBe('uploading');
    expect(fake.calls[1].opts.file).toBe(fake.calls[0].opts.file);
    fake.calls[1].resolve(ok);
    await flush();
    expect(byId(id).status).toBe('success');
  });

  it('ignores retry for a task that did not fail', async () => {
    const [id] = state().enqueue([{ file: file('a'), dir: '/' }], target);
    await flush();
    state().retry(id);
    await flush();
    expect(fake.calls).toHaveLength(1);
  });

  it('cancels a running task: aborts its signal, shows 失败 (已取消), frees the slot, and can be retried', async () => {
    const ids = state().enqueue([{ file: file('a'), dir: '/' }, { file: file('b'), dir: '/' }, { file: file('c'), dir: '/' }], target);
    await flush();
    const signal = fake.calls[0].opts.signal!;
    state().cancel(ids[0]);
    expect(signal.aborted).toBe(true);
    expect(byId(ids[0])).toMatchObject({ status: 'error', error: CANCELLED_MESSAGE });
    await flush();
    expect(byId(ids[0]).status).toBe('error');
    expect(fake.calls).toHaveLength(3);

    state().retry(ids[0]);
    await flush();
    expect(byId(ids[0]).status).toBe('waiting'); // both slots are busy with b and c
    fake.calls[1].resolve(ok);
    await flush();
    expect(byId(ids[0]).status).toBe('uploading');
    expect(fake.calls).toHaveLength(4);
  });

  it('cancels a waiting task without ever starting it', async () => {
    const ids = state().enqueue([{ file: file('a'), dir: '/' }, { file: file('b'), dir: '/' }, { file: file('c'), dir: '/' }], target);
    state().cancel(ids[2]);
    await flush();
    fake.calls[0].resolve(ok);
    await flush();
    expect(fake.calls).toHaveLength(2);
    expect(byId(ids[2])).toMatchObject({ status: 'error', error: CANCELLED_MESSAGE });
  });

  it('removing a running task aborts it and drops the record', async () => {
    const [id] = state().enqueue([{ file: file('a'), dir: '/' }], target);
    await flush();
    state().remove(id);
    expect(fake.calls[0].opts.signal?.aborted).toBe(true);
    await flush();
    expect(state().tasks).toEqual([]);
  });

  it('hashes once per task, even across retries', async () => {
    const hash = vi.fn(async () => 'a'.repeat(64));
    configureUploads({ hash });
    const [id] = state().enqueue([{ file: file('a'), dir: '/' }], target);
    await flush();
    expect(await fake.calls[0].opts.hash!(new AbortController().signal)).toBe('a'.repeat(64));
    fake.calls[0].reject(new RequestError('business', 'x', 1305));
    await flush();
    state().retry(id);
    await flush();
    await fake.calls[1].opts.hash!(new AbortController().signal);
    expect(hash).toHaveBeenCalledTimes(1);
  });

  it('clears finished records only', async () => {
    const ids = state().enqueue([{ file: file('a'), dir: '/' }, { file: file('b'), dir: '/' }], target);
    await flush();
    fake.calls[0].resolve(ok);
    await flush();
    state().clearFinished();
    expect(state().tasks.map((t) => t.id)).toEqual([ids[1]]);
  });
});

describe('leaving the page', () => {
  it('warns on beforeunload only while tasks run', async () => {
    const fire = () => {
      const e = new Event('beforeunload', { cancelable: true }) as BeforeUnloadEvent;
      window.dispatchEvent(e);
      return e;
    };
    expect(fire().defaultPrevented).toBe(false);
    const [id] = state().enqueue([{ file: file('a'), dir: '/' }], target);
    const during = fire();
    expect(during.defaultPrevented).toBe(true);
    expect(during.returnValue).toBe(UPLOAD_REFRESH_WARNING);
    await flush();
    fake.calls[0].resolve(ok);
    await flush();
    expect(byId(id).status).toBe('success');
    expect(fire().defaultPrevented).toBe(false);
  });
});
