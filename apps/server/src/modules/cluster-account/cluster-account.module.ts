import type { AppContext } from '../../context';
import { ClusterAccountRepository } from './cluster-account.repository';
import { ClusterAccountService } from './cluster-account.service';

/**
 * POSIX accounts on the centers, created on first use. No routes of its own: the user module lists them
 * (`/agent/users`) and the file services ensure them; both get the service through the context.
 */
export function createClusterAccountModule(deps: Pick<AppContext, 'db' | 'centers' | 'clock' | 'storage'>) {
  return { service: new ClusterAccountService(new ClusterAccountRepository(deps.db), deps.centers, deps.clock, deps.storage) };
}
