import path from 'node:path';
import type { ModuleMount } from '../module-mount';
import { IMAGE_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import { ArchiveFiles } from './archive-files';
import { ImagePublicationService } from './image-publication.service';
import { ImageRepository } from './image.repository';
import { imageRoutes } from './image.routes';
import { ImageService } from './image.service';
import { RegistryClient } from './registry-client';
import { RegistryKey } from './registry-token';

/**
 * 镜像 (routes under IMAGE_BASE): the registry's token issuer, the console's image calls and the requests to
 * make an image public (ImagePublicationService). The signing key
 * and the certificate the registry trusts live under `<dataDir>/registry/` (made on first start when a
 * registry is configured). Imports a stopped gateway left running are failed before serving.
 */
export async function createImageModule(deps: Pick<AppContext, 'db' | 'clock' | 'config' | 'centers' | 'bus' | 'log' | 'clusterAccounts' | 'userDirectory' | 'access' | 'storage' | 'audit' | 'notify'>) {
  const settings = deps.config.registry;
  let registry: ConstructorParameters<typeof ImageService>[1] = null;
  if (settings) {
    const key = new RegistryKey(path.join(deps.config.dataDir, 'registry'));
    registry = { settings, key, client: new RegistryClient(settings.url, key, { issuer: settings.issuer, service: settings.service, clock: deps.clock }) };
  }
  const archives = new ArchiveFiles(deps.clusterAccounts, deps.storage);
  const repo = new ImageRepository(deps.db);
  const service = new ImageService(repo, registry, deps.clock, {
    users: deps.userDirectory,
    access: deps.access,
    archives,
    centers: deps.centers,
    spoolRoot: path.join(deps.config.dataDir, 'image-imports'),
    bus: deps.bus,
    log: deps.log,
  });
  const publications = new ImagePublicationService(repo, registry?.client ?? null, deps.clock, {
    users: deps.userDirectory,
    access: deps.access,
    audit: deps.audit,
    notify: deps.notify,
  });
  await service.recover();
  return {
    service,
    tokenCertFile: registry?.key.certFile,
    mount: {
      name: 'image',
      routes: [{ prefix: IMAGE_BASE, plugin: imageRoutes(service, publications) }],
      async close() {
        await service.idle();
      },
    } satisfies ModuleMount,
  };
}
