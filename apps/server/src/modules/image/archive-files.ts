import path from 'node:path';
import type { CenterConfig } from '../../centers/centers';
import { invalid } from '../../errors';
import { toFileUser } from '../../file-service/identity';
import { refuseLink, type OpenedFile } from '../../file-service/storage/account-fs';
import { parseUserPath } from '../../file-service/storage/paths';
import { InProcessAccounts, type AccountFsFactory } from '../../file-service/storage/spaces';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';

/** An archive in the user's storage, open for reading; `close` releases it. */
export interface OpenedArchive {
  file: OpenedFile;
  size: number;
  close(): Promise<void>;
}

/**
 * Opens an image archive the user uploaded to a center's storage, read the way the file service reads it:
 * beneath the account's home, no link followed (as the datasets' snapshots do, asset-store.ts).
 */
export class ArchiveFiles {
  private readonly factories = new Map<string, AccountFsFactory>();

  constructor(
    private readonly accounts: ClusterAccountService,
    private readonly accountsFor: (center: CenterConfig) => AccountFsFactory = (c) => new InProcessAccounts(path.join(c.storageRoot, '.uploads')),
  ) {}

  private factory(center: CenterConfig) {
    let f = this.factories.get(center.id);
    if (!f) this.factories.set(center.id, (f = this.accountsFor(center)));
    return f;
  }

  /** The regular file at `userPath` (1005 naming `path` when it is missing or a folder, 1308 for a link). */
  async open(userId: string, center: CenterConfig, userPath: string): Promise<OpenedArchive> {
    const segs = parseUserPath(userPath);
    if (!segs.length) throw invalid('path', '请选择镜像文件');
    const account = await this.accounts.ensure(userId, center.id);
    const space = await this.factory(center).open(toFileUser(center, account));
    try {
      const st = await space.stat(segs).catch(() => null);
      refuseLink(st, segs);
      if (!st) throw invalid('path', `文件不存在：/${segs.join('/')}`);
      if (st.type !== 'file') throw invalid('path', `不是文件：/${segs.join('/')}`);
      const file = await space.openFile(segs);
      return {
        file,
        size: file.stat.size,
        close: async () => {
          await file.close();
          space.release();
        },
      };
    } catch (e) {
      space.release();
      throw e;
    }
  }

  async close() {
    await Promise.all([...this.factories.values()].map((f) => f.close()));
  }
}
