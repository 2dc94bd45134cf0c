import { describe, expect, it } from 'vitest';
import { baseName, breadcrumbOf, directoriesFor, isWithin, joinPath, nameProblem, normalizePath, parentOf, relativeDirOf } from './paths';

describe('paths', () => {
  it('joins, splits and normalises', () => {
    expect(joinPath('/', 'a')).toBe('/a');
    expect(joinPath('/a/', '/b/', 'c.txt')).toBe('/a/b/c.txt');
    expect(joinPath('/a', '')).toBe('/a');
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a')).toBe('/');
    expect(baseName('/a/b.txt')).toBe('b.txt');
    expect(normalizePath(null)).toBe('/');
    expect(normalizePath('a//b/../c/.')).toBe('/a/b/c');
  });

  it('builds the breadcrumb from the home folder down', () => {
    expect(breadcrumbOf('/a/b')).toEqual([
      { path: '/', title: '全部文件' },
      { path: '/a', title: 'a' },
      { path: '/a/b', title: 'b' },
    ]);
    expect(breadcrumbOf('/')).toEqual([{ path: '/', title: '全部文件' }]);
  });

  it('knows when a folder is inside another', () => {
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/a', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
    expect(isWithin('/x', '/')).toBe(true);
  });

  it('refuses names the service would refuse', () => {
    expect(nameProblem('report.txt')).toBeNull();
    expect(nameProblem('')).toBe('请输入名称');
    expect(nameProblem(' a')).toBe('名称首尾不能有空格');
    expect(nameProblem('..')).not.toBeNull();
    expect(nameProblem('a/b')).not.toBeNull();
    expect(nameProblem('a\\b')).not.toBeNull();
    expect(nameProblem('中'.repeat(86))).not.toBeNull(); // 258 bytes in UTF-8
    expect(nameProblem('中'.repeat(85))).toBeNull();
  });

  it('lists the folders a folder upload needs, parents first, empty ones included', () => {
    expect(directoriesFor(['top/a.txt', 'top/sub/b.txt', 'loose.txt', 'top/sub/deeper/c.txt'], ['top/empty'])).toEqual([
      'top',
      'top/empty',
      'top/sub',
      'top/sub/deeper',
    ]);
    expect(directoriesFor(['a.txt'])).toEqual([]);
    expect(relativeDirOf('top/sub/b.txt')).toBe('top/sub');
    expect(relativeDirOf('b.txt')).toBe('');
  });
});
