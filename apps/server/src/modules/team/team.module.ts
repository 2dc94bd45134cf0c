import { ADMIN_BASE, TEAM_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { TeamInvitationService } from './invitation.service';
import { TeamArea } from './team-area';
import { TeamRepository } from './team.repository';
import { teamAdminRoutes, teamRoutes } from './team.routes';
import { TeamService } from './team.service';

/**
 * Teams (routes under TEAM_BASE): members, roles, invitations, and each team's storage area on every center
 * (ADR 0018), which follows the membership: every change, a member's new cluster account, and each start;
 * the operators' list of teams under ADMIN_BASE.
 */
export function createTeamModule(deps: Pick<AppContext, 'db' | 'clock' | 'notify' | 'bus' | 'access' | 'userDirectory' | 'storage' | 'clusterAccounts' | 'centers' | 'log' | 'audit'>) {
  const repo = new TeamRepository(deps.db);
  const area = new TeamArea(repo, deps.storage, deps.clusterAccounts, deps.centers, deps.log);
  const listeners: ((teamId: string) => Promise<void>)[] = [(teamId) => area.apply(teamId)];
  const membership = async (teamId: string) => {
    for (const fn of listeners) await fn(teamId);
  };
  const service = new TeamService(repo, deps.access, deps.userDirectory, deps.clock, deps.notify, deps.bus, membership, (teamId) => area.paths(teamId), deps.audit);
  const invitations = new TeamInvitationService(repo, deps.access, deps.userDirectory, deps.clock, deps.notify, service, membership);
  deps.clusterAccounts.afterCreate((userId, centerId) => area.accountCreated(userId, centerId));
  const mount: ModuleMount = {
    name: 'team',
    routes: [
      { prefix: TEAM_BASE, plugin: teamRoutes(service, invitations, deps.clusterAccounts) },
      // 运营管理 › 团队 (operators only).
      { prefix: ADMIN_BASE, plugin: teamAdminRoutes(service) },
    ],
    start: () => area.applyAll(),
  };
  return {
    service,
    invitations,
    area,
    mount,
    /** Modules built later follow membership too (the asset module: what is shared with a team, ADR 0018). */
    afterMembership(fn: (teamId: string) => Promise<void>) {
      listeners.push(fn);
    },
  };
}
