import { describe, expect, it } from 'vitest';
import { fromDataTransfer, fromFileList, isFileDrag } from './collect';

/** Minimal stand-ins for the FileSystem entry API that Chromium hands out on a drop. */
function fileEntry(file: File): FileSystemFileEntry {
  return { isFile: true, isDirectory: false, name: file.name, file: (ok: (f: File) => void) => ok(file) } as unknown as FileSystemFileEntry;
}
function dirEntry(name: string, children: FileSystemEntry[], batch = 2): FileSystemDirectoryEntry {
  return {
    isFile: false,
    isDirectory: true,
    name,
    createReader: () => {
      let pos = 0;
      // Like Chromium: entries come in batches, then an empty batch.
      return {
        readEntries: (ok: (e: FileSystemEntry[]) => void) => {
          const out = children.slice(pos, pos + batch);
          pos += batch;
          setTimeout(() => ok(out), 0);
        },
      };
    },
  } as unknown as FileSystemDirectoryEntry;
}
function transfer(items: { entry?: FileSystemEntry | null; file?: File }[]): DataTransfer {
  return {
    types: ['Files'],
    files: items.map((i) => i.file).filter(Boolean),
    items: items.map((i) => ({ kind: 'file', webkitGetAsEntry: () => i.entry ?? null, getAsFile: () => i.file ?? null })),
  } as unknown as DataTransfer;
}
const f = (name: string) => new File(['x'], name);

describe('collecting dropped files and folders', () => {
  it('walks folders recursively (all batches), keeps relative paths and records empty folders', async () => {
    const tree = dirEntry('top', [fileEntry(f('a.txt')), dirEntry('sub', [fileEntry(f('b.txt')), fileEntry(f('c.txt')), fileEntry(f('d.txt'))]), dirEntry('empty', [])]);
    const picked = await fromDataTransfer(transfer([{ entry: tree }, { entry: fileEntry(f('loose.bin')) }]));
    expect(picked.files.map((p) => p.relativePath).sort()).toEqual(['loose.bin', 'top/a.txt', 'top/sub/b.txt', 'top/sub/c.txt', 'top/sub/d.txt']);
    expect(picked.dirs.sort()).toEqual(['top', 'top/empty', 'top/sub']);
  });

  it('falls back to the item File when there is no entry (scripted drops)', async () => {
    const picked = await fromDataTransfer(transfer([{ entry: null, file: f('plain.txt') }]));
    expect(picked.files.map((p) => p.relativePath)).toEqual(['plain.txt']);
  });

  it('takes a top-level file from its item even when its entry cannot be read', async () => {
    const broken = { isFile: true, isDirectory: false, name: 'x.bin', file: (_ok: unknown, fail: (e: Error) => void) => fail(new Error('NotFoundError')) };
    const picked = await fromDataTransfer(transfer([{ entry: broken as unknown as FileSystemEntry, file: f('x.bin') }]));
    expect(picked.files.map((p) => p.relativePath)).toEqual(['x.bin']);
  });

  it('uses files when the DataTransfer has no items', async () => {
    const dt = { types: ['Files'], files: [f('x.txt')], items: undefined } as unknown as DataTransfer;
    expect((await fromDataTransfer(dt)).files.map((p) => p.relativePath)).toEqual(['x.txt']);
  });

  it('keeps webkitRelativePath from a folder picker', () => {
    const file = f('b.txt');
    Object.defineProperty(file, 'webkitRelativePath', { value: 'top/sub/b.txt' });
    expect(fromFileList([file, f('c.txt')]).files.map((p) => p.relativePath)).toEqual(['top/sub/b.txt', 'c.txt']);
  });

  it('only reacts to drags that carry files', () => {
    expect(isFileDrag({ types: ['Files'] } as unknown as DataTransfer)).toBe(true);
    expect(isFileDrag({ types: ['text/plain'] } as unknown as DataTransfer)).toBe(false);
    expect(isFileDrag(null)).toBe(false);
  });
});
