import { describe, expect, it } from 'vitest';
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
