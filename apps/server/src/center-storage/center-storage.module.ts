import { FOUNDATION_BASE } from '@suanli/contracts';
import type { CenterConfig } from '../centers/centers';
import type { ModuleMount } from '../modules/module-mount';
import { CenterStorages } from './center-storage';
import { HttpCenterStorage } from './http-center-storage';
import { LocalCenterStorage } from './local-center-storage';
import { StorageGrants, storageGrantRoutes } from './storage-grants';

/**
 * Every center's storage as the gateway's modules reach it (ADR 0016): on this host's disk for a center whose
 * `storageAccess` is `local` (the embedded default), through the center's file service for `fileService`. The
 * storage grants the file services check come from here, and so does the route they check them with.
 */
export function createCenterStorage(deps: { centers: CenterConfig[]; dataDir: string; clock: () => number }) {
  const grants = new StorageGrants(deps.dataDir, deps.clock);
  const storages = new CenterStorages(deps.centers, (c) =>
    c.storageAccess === 'fileService'
      ? // centers-file.ts made sure such a center has a fileServiceUrl.
        new HttpCenterStorage({ centerId: c.id, centerName: c.name, url: c.fileServiceUrl!, grant: () => grants.grantFor(c.id) })
      : new LocalCenterStorage(c),
  );
  const mount: ModuleMount = {
    name: 'center-storage',
    routes: [{ prefix: FOUNDATION_BASE, plugin: storageGrantRoutes(grants) }],
    close: () => storages.close(),
  };
  return { storages, grants, mount };
}
