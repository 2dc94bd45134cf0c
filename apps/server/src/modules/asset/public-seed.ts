import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AssetCreate, AssetKind } from '@suanli/contracts';
import { activeAccount, type CenterStorages } from '../../center-storage/center-storage';
import type { CenterConfig } from '../../centers/centers';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { AssetService } from './asset.service';
import { systemPrincipal } from '../access/principal';

/** The platform's own account, which owns the public hall's seed assets. */
export const PLATFORM_ACCOUNT = { username: 'platform', nickname: '算力平台' } as const;

interface SeedEntry extends Omit<AssetCreate, 'source'> {
  dir: string;
  kind: AssetKind;
}

/**
 * The public hall's seed (`public-assets/` beside the centers file, listed in its `index.json`): each entry's
 * folder is copied into the platform account's home on the first online center (through its storage: this
 * host's disk or the center's file service), published and made its v1.
 * Idempotent: an entry whose name the platform account already has is left alone.
 */
export async function seedPublicAssets(deps: {
  dir: string;
  centers: CenterConfig[];
  clusterAccounts: ClusterAccountService;
  storage: CenterStorages;
  services: Record<AssetKind, AssetService>;
  /** The platform account's user id, created when missing. */
  platformUser: () => Promise<string>;
}): Promise<number> {
  const indexFile = path.join(deps.dir, 'index.json');
  if (!fs.existsSync(indexFile)) return 0;
  const entries = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as SeedEntry[];
  const center = deps.centers.find((c) => c.status === 'online');
  if (!center || !entries.length) return 0;
  const userId = await deps.platformUser();
  const p = systemPrincipal(userId);
  const account = await deps.clusterAccounts.ensure(userId, center.id);
  let made = 0;
  for (const { dir, kind, ...meta } of entries) {
    const service = deps.services[kind];
    if (await service.ownsNamed(userId, meta.name)) continue;
    for (const rel of filesBelow(path.join(deps.dir, dir))) {
      await deps.storage.of(center).writeFile(activeAccount(account), `/public-assets/${dir}/${rel}`, fs.createReadStream(path.join(deps.dir, dir, rel)));
    }
    // Public from the start, then its v1: the folder is never private (0755 once the copy is there, ADR 0013).
    const created = await service.create(p, meta);
    await service.approvePublish(created.id);
    await service.addVersion(p, created.id, { subCenterId: center.id, path: `/public-assets/${dir}`, note: '平台发布' });
    await service.idle();
    made++;
  }
  return made;
}

/** The regular files below `dir`, as `a/b.txt` paths (the seed's own folder in the repository). */
function filesBelow(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/** A password nobody knows: the platform account is not for signing in. */
export const unusablePassword = () => `${randomBytes(18).toString('base64url')}Aa1!`;
