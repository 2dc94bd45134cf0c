import type { TeamRole } from '@suanli/contracts';
import type { Resource } from '../access/access.policy';
import type { Principal } from '../access/principal';
import type { InvitationRow, TeamWithRole } from './team.repository';

/** The team as the policy reads it: the caller's role is all the repository returned, and all a rule needs. */
export function resourceOf(r: TeamWithRole, p: Pick<Principal, 'userId'>): Resource {
  return { ownerId: r.owner_id, team: { id: r.id, roles: new Map(r.my_role ? [[p.userId, r.my_role as TeamRole]] : []) } };
}

/** An invitation is its invitee's (`owner`); the team's owner and admins read it through the team. */
export function invitationResource(r: InvitationRow, team: TeamWithRole | undefined, p: Principal): Resource {
  return { ownerId: r.invitee_id, ...(team ? { team: resourceOf(team, p).team } : {}) };
}
