import { describe, expect, it } from 'vitest';
import type { Picked } from './collect';
import { freeName, resolveConflicts, topLevelNames } from './conflicts';

const file = (relativePath: string) => ({ file: new File(['x'], relativePath.split('/').pop()!, { lastModified: 7 }), relativePath });

describe('upload conflicts', () => {
  it('finds a free name like 名称 (1).txt, past taken ones, numbering folders and dot files at the end', () => {
    expect(freeName('笔记.txt', new Set(['笔记.txt']))).toBe('笔记 (1).txt');
    expect(freeName('笔记.txt', new Set(['笔记.txt', '笔记 (1).txt']))).toBe('笔记 (2).txt');
    expect(freeName('archive.tar.gz', new Set())).toBe('archive.tar (1).gz');
    expect(freeName('数据集.v2', new Set(), true)).toBe('数据集.v2 (1)');
    expect(freeName('.env', new Set())).toBe('.env (1)');
    expect(freeName('Makefile', new Set())).toBe('Makefile (1)');
  });

  it('lists the names an upload puts into the folder: loose files and top folders', () => {
    const picked: Picked = { files: [file('a.txt'), file('数据/b.txt'), file('数据/子/c.txt')], dirs: ['数据', '数据/子', '空'] };
    expect([...topLevelNames(picked)].sort()).toEqual(['a.txt', '数据', '空'].sort());
  });

  it('跳过 drops the clashing files and folders, 覆盖 keeps everything as it is', () => {
    const picked: Picked = { files: [file('a.txt'), file('b.txt'), file('数据/c.txt')], dirs: ['数据'] };
    const skipped = resolveConflicts(picked, new Set(['a.txt', '数据']), new Set(['a.txt', '数据']), 'skip');
    expect(skipped.files.map((f) => f.relativePath)).toEqual(['b.txt']);
    expect(skipped.dirs).toEqual([]);
    expect(resolveConflicts(picked, new Set(['a.txt']), new Set(['a.txt']), 'overwrite')).toBe(picked);
  });

  it('保留两者 uploads under free names: the File itself for a loose file, the top folder for a folder', () => {
    const picked: Picked = { files: [file('a.txt'), file('a (1).txt'), file('数据/c.txt')], dirs: ['数据', '数据/子'] };
    const existing = new Set(['a.txt', '数据']);
    const kept = resolveConflicts(picked, new Set(['a.txt', '数据']), existing, 'keepBoth');
    // 'a (1).txt' is part of this upload, so the renamed copy takes (2).
    expect(kept.files.map((f) => [f.relativePath, f.file.name])).toEqual([
      ['a (2).txt', 'a (2).txt'],
      ['a (1).txt', 'a (1).txt'],
      ['数据 (1)/c.txt', 'c.txt'],
    ]);
    expect(kept.files[0].file.lastModified).toBe(7);
    expect(kept.dirs).toEqual(['数据 (1)', '数据 (1)/子']);
  });
});
