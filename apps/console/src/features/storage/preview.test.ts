import { describe, expect, it } from 'vitest';
import { filenameFrom } from './api';
import { decodePreview, previewKind, PREVIEW_BYTES } from './preview';

describe('preview', () => {
  it('previews text-like files, not binaries, and says when a file is empty', () => {
    expect(previewKind({ name: 'train.log', size: 10, type: 'file' })).toBe('text');
    expect(previewKind({ name: 'job.SLURM', size: 10, type: 'file' })).toBe('text');
    expect(previewKind({ name: 'Makefile', size: 10, type: 'file' })).toBe('text');
    expect(previewKind({ name: 'model.bin', size: 10, type: 'file' })).toBe('none');
    expect(previewKind({ name: 'a.txt', size: 0, type: 'file' })).toBe('empty');
    expect(previewKind({ name: 'dir', size: 0, type: 'dir' })).toBe('none');
  });

  it('decodes UTF-8, flags truncation and binary content', () => {
    const bytes = new TextEncoder().encode('你好, world');
    expect(decodePreview(bytes, bytes.length)).toEqual({ text: '你好, world', truncated: false, binary: false });
    expect(decodePreview(bytes, PREVIEW_BYTES * 2).truncated).toBe(true);
    expect(decodePreview(new Uint8Array([65, 0, 66]), 3).binary).toBe(true);
  });
});

describe('filenameFrom', () => {
  it('prefers the RFC 5987 name and falls back to the plain one', () => {
    expect(filenameFrom(`attachment; filename="a.zip"; filename*=UTF-8''%E6%95%B0%E6%8D%AE.zip`)).toBe('数据.zip');
    expect(filenameFrom('attachment; filename="report.txt"')).toBe('report.txt');
    expect(filenameFrom('attachment; filename=plain.txt')).toBe('plain.txt');
    expect(filenameFrom(null)).toBeUndefined();
  });
});
