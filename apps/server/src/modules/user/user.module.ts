import path from 'node:path';
import type { AppContext } from '../../context';
import { AvatarStore } from './avatar';
import { LoginFailureRepository } from './login-failure.repository';
import { LoginGuard } from './login-guard';
import { RsaKeyRepository } from './rsa-key.repository';
import { RsaKeyService } from './rsa-key.service';
import { userRoutes } from './user.routes';
import { UserRepository } from './user.repository';
import { UserService } from './user.service';
import { VerificationCodeRepository } from './verification-code.repository';
import { VerificationCodeService } from './verification-code.service';

/**
 * Accounts (routes under USER_BASE): register, login and lockout, codes, profile, avatar, the RSA key pair
 * for passwords (created or loaded before serving). The demo seed uses its service.
 */
export async function createUserModule(deps: Pick<AppContext, 'db' | 'clock' | 'sender' | 'sessions' | 'clusterAccounts' | 'centers' | 'config' | 'log'>) {
  const rsa = new RsaKeyService(new RsaKeyRepository(deps.db), deps.clock);
  await rsa.init();
  const codes = new VerificationCodeService(new VerificationCodeRepository(deps.db), deps.sender, deps.clock, (err) =>
    deps.log.error({ err }, 'sending a verification code failed'),
  );
  const service = new UserService({
    users: new UserRepository(deps.db),
    guard: new LoginGuard(new LoginFailureRepository(deps.db), rsa, deps.clock),
    codes,
    rsa,
    sessions: deps.sessions,
    clusterAccounts: deps.clusterAccounts,
    avatars: new AvatarStore(path.join(deps.config.dataDir, 'avatars')),
    centers: deps.centers,
    clock: deps.clock,
  });
  return { service, routes: userRoutes(service, { rateLimitMax: deps.config.rateLimit.max }) };
}
