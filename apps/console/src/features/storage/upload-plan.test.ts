import { describe, expect, it, vi } from 'vitest';
import { RequestError } from '../../app/request';
import type { FileApi } from './api';
import { prepareUpload } from './upload-plan';

const f = (name: string) => new File(['x'], name);

describe('prepareUpload', () => {
  it('creates the needed folders parents first (an existing one is fine), then targets each file at its folder', async () => {
    const made: string[] = [];
    const mkdir = vi.fn(async (parent: string, name: string) => {
      if (name === 'top') throw new RequestError('business', '目录已存在', 1304);
      made.push(`${parent}|${name}`);
      return {} as never;
    });
    const progress: string[] = [];
    const items = await prepareUpload(
      { mkdir } as unknown as FileApi,
      '/work',
      {
        files: [
          { file: f('a.txt'), relativePath: 'top/a.txt' },
          { file: f('b.txt'), relativePath: 'top/sub/b.txt' },
          { file: f('c.txt'), relativePath: 'c.txt' },
        ],
        dirs: ['top', 'top/sub', 'top/empty'],
      },
      ({ done, total }) => progress.push(`${done}/${total}`),
    );
    expect(mkdir.mock.calls.map(([p, n]) => `${p}|${n}`)).toEqual(['/work|top', '/work/top|empty', '/work/top|sub']);
    expect(made).toEqual(['/work/top|empty', '/work/top|sub']);
    expect(progress).toEqual(['1/3', '2/3', '3/3']);
    expect(items.map((i) => [i.file.name, i.dir])).toEqual([
      ['a.txt', '/work/top'],
      ['b.txt', '/work/top/sub'],
      ['c.txt', '/work'],
    ]);
  });

  it('stops at any other refusal', async () => {
    const mkdir = vi.fn(async () => {
      throw new RequestError('business', '存储空间不足', 1309);
    });
    await expect(
      prepareUpload({ mkdir } as unknown as FileApi, '/', { files: [{ file: f('a'), relativePath: 'd/a' }], dirs: [] }),
    ).rejects.toMatchObject({ code: 1309 });
  });
});
