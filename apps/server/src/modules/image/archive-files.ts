import type { Readable } from 'node:stream';
import { activeAccount, parseUserPath, type CenterStorages } from '../../center-storage/center-storage';
import type { CenterConfig } from '../../centers/centers';
import { ErrorCode } from '@suanli/contracts';
import { AppError, invalid } from '../../errors';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';

/** An archive in the user's storage, open for reading once from its start; `close` lets it go unread. */
export interface OpenedArchive {
  stream: Readable;
  size: number;
  close(): void;
}

/**
 * Opens an image archive the user uploaded to a center's storage, through that center's storage (this host's
 * disk or its file service, ADR 0016): beneath the account's home, no link followed, as the file service
 * reads it (as the datasets' snapshots do).
 */
export class ArchiveFiles {
  constructor(
    private readonly accounts: ClusterAccountService,
    private readonly storage: CenterStorages,
  ) {}

  /** The regular file at `userPath` (1005 naming `path` when it is missing or a folder, 1308 for a link). */
  async open(userId: string, center: CenterConfig, userPath: string): Promise<OpenedArchive> {
    const segs = parseUserPath(userPath);
    if (!segs.length) throw invalid('path', '请选择镜像文件');
    const normal = `/${segs.join('/')}`;
    const account = activeAccount(await this.accounts.ensure(userId, center.id));
    const storage = this.storage.of(center);
    const st = await storage.stat(account, normal);
    if (st?.type === 'link') throw new AppError(ErrorCode.ILLEGAL_PATH, `非法路径：${normal} 是符号链接，平台不会跟随`);
    if (!st) throw invalid('path', `文件不存在：${normal}`);
    if (st.type !== 'file') throw invalid('path', `不是文件：${normal}`);
    // Swapped for something else since the stat: no file is no file.
    const opened = await storage.openFile(account, normal);
    if (!opened) throw invalid('path', `文件不存在：${normal}`);
    return { stream: opened.stream, size: opened.size, close: () => opened.stream.destroy() };
  }
}
