import path from 'node:path';
import type { ModuleMount } from '../module-mount';
import { IMAGE_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import { ArchiveFiles } from './archive-files';
import { ImageRepository } from './image.repository';
import { imageRoutes } from './image.routes';
import { ImageService } from './image.service';
import { RegistryClient } from './registry-client';
import { RegistryKey } from './registry-token';

/**
 * 镜像 (routes under IMAGE_BASE): the registry's token issuer and the console's image calls. The signing key
 * and the certificate the registry trusts live under `<dataDir>/registry/` (made on first start when a
 * registry is configured). Imports a stopped gateway left running are failed before serving.
 */
export async function createImageModule(deps: Pick<AppContext, 'db' | 'clock' | 'config' | 'centers' | 'bus' | 'log' | 'clusterAccounts' | 'userDirectory' | 'access' | 'storage'>) {
  const settings = deps.config.registry;
  let registry: ConstructorParameters<typeof ImageService>[1] = null;
  if (settings) {
    const key = new RegistryKey(path.join(deps.config.dataDir, 'registry'));
    registry = { settings, key, client: new RegistryClient(settings.url, key, { issuer: settings.issuer, service: settings.service, clock: deps.clock }) };
  }
  const archives = new ArchiveFiles(deps.clusterAccounts, deps.storage);
  const service = new ImageService(new ImageRepository(deps.db), registry, deps.clock, {
    users: deps.userDirectory,
    access: deps.access,
    archives,
    centers: deps.centers,
    spoolRoot: path.join(deps.config.dataDir, 'image-imports'),
    bus: deps.bus,
    log: deps.log,
  });
  await service.recover();
  return {
    service,
    tokenCertFile: registry?.key.certFile,
    mount: {
      name: 'image',
      routes: [{ prefix: IMAGE_BASE, plugin: imageRoutes(service) }],
      async close() {
        await service.idle();
      },
    } satisfies ModuleMount,
  };
}
