/**
 * Uploading a picked set into the current directory: create the folders it needs (parents first, an
 * existing one is fine), then queue every file into its own folder. Folder creation is sequential because
 * each level needs its parent.
 */
import { ErrorCode } from '@suanli/contracts';
import { RequestError } from '../../app/request';
import type { UploadItem } from '../../shared/upload';
import type { FileApi } from './api';
import type { Picked } from './collect';
import { directoriesFor, joinPath, relativeDirOf } from './paths';

export interface PlanProgress {
  done: number;
  total: number;
}

export async function prepareUpload(api: FileApi, targetDir: string, picked: Picked, onDirProgress?: (p: PlanProgress) => void): Promise<UploadItem[]> {
  const dirs = directoriesFor(
    picked.files.map((f) => f.relativePath),
    picked.dirs,
  );
  let done = 0;
  for (const rel of dirs) {
    const parts = rel.split('/');
    const name = parts.pop()!;
    const parent = joinPath(targetDir, ...parts);
    try {
      await api.mkdir(parent, name, { silent: true });
    } catch (err) {
      // Uploading a folder again, or into a folder that already has it: keep going.
      if (!(err instanceof RequestError && err.code === ErrorCode.DIR_EXISTS)) throw err;
    }
    onDirProgress?.({ done: ++done, total: dirs.length });
  }
  return picked.files.map(({ file, relativePath }) => ({ file, dir: joinPath(targetDir, relativeDirOf(relativePath)) }));
}
