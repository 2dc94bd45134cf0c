import type { SubCenter } from '@suanli/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { RequestError } from '../../app/request';
import { useUploadStore } from '../../shared/upload';
import type { FileApi } from './api';
import type { Picked } from './collect';
import { askConflict } from './components/conflict-dialog';
import { formatCapacity } from './components/usage-bar';
import { existingNames, resolveConflicts, topLevelNames } from './conflicts';
import { refreshCenterAfterUpload } from './hooks';
import { prepareUpload } from './upload-plan';

interface UploadContext {
  api: FileApi;
  center: SubCenter;
  /** A team's folder (`team:<id>`) rather than the home: the uploads carry it (`x-file-space`). */
  space?: string;
  /** The space as the upload panel names it beside the center (团队「T」空间). */
  spaceName?: string;
  /** The cache scope of the listing (see `cacheScope`). */
  scope: string;
  path: string;
  quotaLeft?: number;
  refresh: () => unknown;
}

/**
 * 上传 on the storage page: same-named entries asked about first (the file service would replace them
 * silently), the folders of a folder upload made, then the files queued in the upload panel.
 */
export function useStorageUpload({ api, center, space, spaceName, scope, path, quotaLeft, refresh }: UploadContext) {
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  return async (picked: Picked) => {
    if (picked.files.length === 0 && picked.dirs.length === 0) return;
    const total = picked.files.reduce((n, f) => n + f.file.size, 0);
    if (quotaLeft !== undefined && total > quotaLeft) {
      message.warning(`所选文件共 ${formatCapacity(total)}，超过剩余空间 ${formatCapacity(Math.max(0, quotaLeft))}，部分文件可能上传失败`);
    }
    const key = 'storage-prepare-upload';
    try {
      // The file service would replace same-named files silently: ask first.
      const existing = await existingNames(api, path);
      const clashes = [...topLevelNames(picked)].filter((n) => existing.has(n));
      if (clashes.length > 0) {
        const choice = await askConflict(modal, clashes);
        if (!choice) return;
        picked = resolveConflicts(picked, new Set(clashes), existing, choice);
        if (picked.files.length === 0 && picked.dirs.length === 0) {
          message.info('已跳过同名项目，没有需要上传的文件');
          return;
        }
      }
      const withDirs = picked.dirs.length > 0 || picked.files.some((f) => f.relativePath.includes('/'));
      const items = await prepareUpload(api, path, picked, ({ done, total: n }) =>
        message.open({ key, type: 'loading', content: `正在创建文件夹（${done}/${n}）`, duration: 0 }),
      );
      if (withDirs) {
        message.destroy(key);
        void refresh();
      }
      const ids = useUploadStore.getState().enqueue(items, {
        baseUrl: center.fileServiceUrl,
        centerId: center.id,
        centerName: spaceName ? `${center.name} · ${spaceName}` : center.name,
        space,
        onUploaded: () => refreshCenterAfterUpload(queryClient, scope),
      });
      if (ids.length < items.length) message.info('部分文件已在上传队列中，已跳过');
    } catch (err) {
      message.destroy(key);
      // Folder creation runs silently (an existing folder is fine), so other refusals are shown here.
      if (!(err instanceof RequestError && err.kind === 'session')) message.error(err instanceof Error ? err.message : '创建文件夹失败');
    }
  };
}
