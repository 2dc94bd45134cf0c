import type { CenterConfig } from '../centers/centers';
import { AuthorizedKeysService } from './authorized-keys.service';
import { DownloadService } from './download.service';
import { FolderService } from './folder.service';
import { type AccountFsFactory, InProcessAccounts, Spaces } from './storage/spaces';
import { UploadService } from './upload.service';
import { SyncService } from './sync.service';
import { UPLOAD_CHUNK_SIZE } from '@suanli/contracts';
import path from 'node:path';
import { LocalCenterStorage } from '../center-storage/local-center-storage';

export interface FileServiceOptions {
  center: CenterConfig;
  clock: () => number;
  /** Advertised to clients; 8 MiB by contract. */
  chunkSize?: number;
  /** How accounts' spaces are opened: in this process (default) or in workers running as the account. */
  accounts?: AccountFsFactory;
}

/**
 * One center's file service, composed: the file manager's operations, uploads, downloads and sync over the
 * spaces of that center's accounts (storage/spaces.ts).
 */
export class FileService {
  readonly spaces: Spaces;
  readonly folders: FolderService;
  readonly uploads: UploadService;
  readonly downloads: DownloadService;
  /** Cross-center sync: this center as a source and as a receiver (ADR 0010). */
  readonly sync: SyncService;
  /** The account's `~/.ssh/authorized_keys`, as the gateway's key pairs edit it. */
  readonly authorizedKeys: AuthorizedKeysService;
  /** The gateway's operations on this center's storage (storage.routes.ts, ADR 0016), over the same spaces. */
  readonly storage: LocalCenterStorage;

  constructor(opts: FileServiceOptions) {
    this.spaces = new Spaces(opts.center, opts.accounts ?? new InProcessAccounts(path.join(opts.center.storageRoot, '.uploads')));
    this.folders = new FolderService(this.spaces);
    this.uploads = new UploadService(this.spaces, opts.clock, opts.chunkSize);
    this.downloads = new DownloadService(this.spaces);
    this.sync = new SyncService(this.spaces, this.uploads, opts.chunkSize ?? UPLOAD_CHUNK_SIZE);
    this.authorizedKeys = new AuthorizedKeysService(this.spaces);
    this.storage = new LocalCenterStorage(opts.center, { accounts: this.spaces.accounts });
  }

  /** Removes abandoned uploads (24 h without a write). */
  cleanup(maxAgeMs?: number) {
    return this.uploads.cleanup(maxAgeMs);
  }

  close() {
    return this.spaces.close();
  }
}
