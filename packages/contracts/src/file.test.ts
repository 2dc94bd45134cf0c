import { describe, expect, it } from 'vitest';
import { downloadName } from './file';

describe('downloadName', () => {
  it('names downloads as the file service does (file-service api test: 中文.txt等2个文件.zip)', () => {
    expect(downloadName([{ name: '笔记.txt', type: 'file' }])).toBe('笔记.txt');
    expect(downloadName([{ name: '数据集', type: 'dir' }])).toBe('数据集.zip');
    expect(downloadName([{ name: '笔记.txt', type: 'file' }, { name: 'a.bin', type: 'file' }])).toBe('笔记.txt等2个文件.zip');
    expect(downloadName([{ name: '数据集', type: 'dir' }, { name: 'a.bin', type: 'file' }, { name: 'b', type: 'dir' }])).toBe('数据集等3个文件.zip');
  });
});
