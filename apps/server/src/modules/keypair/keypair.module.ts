import type { AppContext } from '../../context';
import { AuthorizedKeys } from './authorized-keys';
import { KeyVault } from './key-vault';
import { KeyPairRepository } from './keypair.repository';
import { keypairRoutes } from './keypair.routes';
import { KeyPairService } from './keypair.service';

/** Key pairs (routes under KEYPAIR_BASE); its service is also the web shell's key source. */
export function createKeypairModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'config' | 'clusterAccounts'>) {
  const service = new KeyPairService(
    new KeyPairRepository(deps.db),
    new AuthorizedKeys(),
    new KeyVault(deps.config.dataDir),
    deps.clusterAccounts,
    deps.centers,
    deps.clock,
  );
  return { service, routes: keypairRoutes(service) };
}
