import { ADMIN_BASE } from '@suanli/contracts';
import type { Infra } from '../../context';
import type { AccessService } from '../access/access.service';
import type { UserDirectory } from '../user/user-directory';
import type { ModuleMount } from '../module-mount';
import { AuditRepository } from './audit.repository';
import { auditRoutes } from './audit.routes';
import { AuditService } from './audit.service';

/**
 * 审计日志 (issue 20): the audit trail every operator action writes through (`AuditTrail`, in the context as
 * `audit`), and the operators' list under ADMIN_BASE. Built before the context, after the access module and
 * the user directory it reads; the server command (`npm run admin`) builds it the same way.
 */
export function createAuditModule(deps: Pick<Infra, 'db' | 'clock'>, access: Pick<AccessService, 'require'>, users: Pick<UserDirectory, 'username'>) {
  const service = new AuditService(new AuditRepository(deps.db), access, users, deps.clock);
  const mount: ModuleMount = { name: 'audit', routes: [{ prefix: ADMIN_BASE, plugin: auditRoutes(service) }] };
  return { service, mount };
}
