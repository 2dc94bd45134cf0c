import { ADMIN_BASE, TEAM_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { TeamRepository } from './team.repository';
import { teamAdminRoutes, teamRoutes } from './team.routes';
import { TeamService } from './team.service';

/** Teams (routes under TEAM_BASE): members, roles, invitations; the operators' list of teams under ADMIN_BASE. */
export function createTeamModule(deps: Pick<AppContext, 'db' | 'clock' | 'notify' | 'bus' | 'access' | 'userDirectory'>) {
  const service = new TeamService(new TeamRepository(deps.db), deps.access, deps.userDirectory, deps.clock, deps.notify, deps.bus);
  const mount: ModuleMount = {
    name: 'team',
    routes: [
      { prefix: TEAM_BASE, plugin: teamRoutes(service) },
      { prefix: ADMIN_BASE, plugin: teamAdminRoutes(service) },
    ],
  };
  return { service, mount };
}
