import path from 'node:path';
import { ADMIN_BASE, USER_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { AvatarStore } from './avatar';
import { LoginFailureRepository } from './login-failure.repository';
import { LoginGuard } from './login-guard';
import { RsaKeyRepository } from './rsa-key.repository';
import { RsaKeyService } from './rsa-key.service';
import { userRoutes } from './user.routes';
import { UserAdminService, type RunningTaskRow } from './user-admin.service';
import { userAdminRoutes } from './user-admin.routes';
import { UserRepository } from './user.repository';
import { UserDirectory } from './user-directory';
import { UserService } from './user.service';
import { VerificationCodeRepository } from './verification-code.repository';
import { VerificationCodeService } from './verification-code.service';

/**
 * The user module's read side for other modules (names, lookups, account state). Built from infra alone,
 * before the access and session services that need it; `createUserModule` builds the rest later.
 */
export function createUserDirectory(deps: Pick<AppContext, 'db'>) {
  return new UserDirectory(new UserRepository(deps.db));
}

/**
 * The RSA key pairs for passwords, built from infra alone: the gateway's user module and the server
 * command (`npm run admin -- rsa …`) use the same service.
 */
export function createRsaKeyService(deps: Pick<AppContext, 'db' | 'clock'>) {
  return new RsaKeyService(new RsaKeyRepository(deps.db), deps.clock);
}

/**
 * Accounts (routes under USER_BASE): register, login and lockout, codes, profile, avatar, the RSA key pair
 * for passwords (created or loaded before serving). The demo seed uses its service.
 */
export async function createUserModule(deps: Pick<AppContext, 'db' | 'clock' | 'sender' | 'sessions' | 'access' | 'clusterAccounts' | 'centers' | 'config' | 'log'>) {
  const rsa = createRsaKeyService(deps);
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
    access: deps.access,
    clusterAccounts: deps.clusterAccounts,
    avatars: new AvatarStore(path.join(deps.config.dataDir, 'avatars')),
    centers: deps.centers,
    clock: deps.clock,
  });
  const mount: ModuleMount = { name: 'user', routes: [{ prefix: USER_BASE, plugin: userRoutes(service, { rateLimitMax: deps.config.rateLimit.max }) }] };
  return { service, mount };
}

/**
 * 运营管理 › 用户 (routes under ADMIN_BASE, operators only): the user module's operator side, built after the
 * task module whose usage port (`running`) shows an account's tasks holding cards now.
 */
export function createUserAdmin(
  deps: Pick<AppContext, 'db' | 'clock' | 'access' | 'audit' | 'sessions'>,
  users: Pick<UserService, 'agentUsers'>,
  runningTasks: (userId: string) => Promise<RunningTaskRow[]>,
) {
  const service = new UserAdminService({
    users: new UserRepository(deps.db),
    access: deps.access,
    audit: deps.audit,
    sessions: deps.sessions,
    clusterAccounts: (id) => users.agentUsers(id),
    runningTasks,
    clock: deps.clock,
  });
  const mount: ModuleMount = { name: 'user-admin', routes: [{ prefix: ADMIN_BASE, plugin: userAdminRoutes(service) }] };
  return { service, mount };
}
