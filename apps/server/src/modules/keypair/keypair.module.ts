import { KEYPAIR_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import type { AuthorizedKeysClient } from './authorized-keys.client';
import { KeyVault } from './key-vault';
import { KeyPairRepository } from './keypair.repository';
import { keypairRoutes } from './keypair.routes';
import { KeyPairService } from './keypair.service';

/**
 * Key pairs (routes under KEYPAIR_BASE); its service is also the web shell's key source. `keysOn` reaches a
 * center's file service, which edits the account's authorized_keys.
 */
export function createKeypairModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'config' | 'clusterAccounts'>, keysOn: (centerId: string) => AuthorizedKeysClient) {
  const service = new KeyPairService(
    new KeyPairRepository(deps.db),
    keysOn,
    new KeyVault(deps.config.dataDir),
    deps.clusterAccounts,
    deps.centers,
    deps.clock,
  );
  const mount: ModuleMount = { name: 'keypair', routes: [{ prefix: KEYPAIR_BASE, plugin: keypairRoutes(service) }] };
  return { service, mount };
}
