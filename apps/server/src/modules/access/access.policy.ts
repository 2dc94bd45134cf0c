import type { Role, TeamRole } from '@suanli/contracts';
import type { Principal } from './principal';

/**
 * Something a principal may act on: whose it is, whether everyone may read it, whom it is shared with, and
 * the team it belongs to. Services describe their rows this way and never compare owners or roles themselves.
 */
export interface Resource {
  ownerId: string;
  /** Readable by every signed-in user (a public dataset, model or image). */
  public?: boolean;
  /** Users it is shared with; a repository may return only the caller's share (that is all a rule reads). */
  sharees?: readonly string[];
  /**
   * The team it belongs to (a team itself, or later a team's dataset) and the roles members hold in it. The
   * repository reads the caller's membership with the row (it may return only the caller's), so a role
   * taken away counts at once on every gateway process — unlike platform roles, team roles change all the
   * time (an invitation accepted, a member removed) and are not cached with the session.
   */
  team?: { id: string; roles: ReadonlyMap<string, TeamRole> };
}

/**
 * Who may: the resource's owner, a user it is shared with, anyone when it is public, a platform role, or by
 * role in the resource's team: any member (`teamMember`), an admin or the owner (`teamAdmin`), the owner
 * (`teamOwner`).
 */
type Condition = 'owner' | 'sharee' | 'public' | 'teamMember' | 'teamAdmin' | 'teamOwner' | Role;

/**
 * Every permission of the platform and who holds it — the one table to read (and to extend for teams).
 * Actions without a resource (the operators' views of everyone's data) name only roles.
 */
export const RULES = {
  /** Read a dataset or model, mount it in a task, list its files (also every member of a team it is shared with). */
  'asset.read': ['owner', 'sharee', 'public', 'teamMember'],
  /** Change, version, share, publish or delete it. */
  'asset.write': ['owner'],
  /** Approve or reject publications to the public hall; see the requests waiting. */
  'asset.review': ['operator'],
  /** Push to the operators' public image namespace (they publish the public images), and decide users' requests to make an image public (审核). */
  'image.publish': ['operator'],
  /** An image import (its progress): only whoever started it. */
  'image.import.read': ['owner'],
  /** A user's compute-power balance. */
  'compPower.read': ['owner'],
  /** Give a user compute power for free (赠送). */
  'compPower.grant': ['operator'],
  /** A charge, grant or consume record (费用明细): only its owner. */
  'record.read': ['owner'],
  /** An order: its owner, and operators (they match transfers to orders). */
  'order.read': ['owner', 'operator'],
  /** Pay or cancel an order. */
  'order.write': ['owner'],
  /** Everyone's orders. */
  'order.readAll': ['operator'],
  /** Confirm that an offline transfer arrived (the credit). */
  'order.confirm': ['operator'],
  /** A work order and its conversation: the owner and the operators who answer it. */
  'workorder.read': ['owner', 'operator'],
  /** An attachment: the work order's owner, whoever uploaded it (a sharee of the attachment), operators. */
  'workorder.attachment.read': ['owner', 'sharee', 'operator'],
  /** Everyone's work orders. */
  'workorder.readAll': ['operator'],
  /** Mark a work order resolved (the operators' answer worked). */
  'workorder.resolve': ['operator'],
  /** A task: its detail, log and curves, its parameters (resubmit, save as template), its IDE and SSH way in. */
  'task.read': ['owner'],
  /** Stop it, delete it. */
  'task.write': ['owner'],
  /** 运营管理 › 用户 › 运行中的任务: stop any user's task, with a reason (audited; the owner is told why). */
  'task.stopAny': ['operator'],
  /** A key pair: install, uninstall, remove (only its owner ever sees it). */
  'keypair.write': ['owner'],
  /** A cross-center sync job: read it, cancel it. */
  'sync.read': ['owner'],
  'sync.write': ['owner'],
  /** A Slurm job template of one's own (the platform's are public and read-only, answered before this). */
  'slurmTemplate.read': ['owner'],
  'slurmTemplate.write': ['owner'],
  /** Everyone's web-shell and IDE access records. */
  'accessLog.readAll': ['operator'],
  /** 运营管理 › 用户: find any account and read its detail (contacts unmasked, roles, cluster accounts, tasks). */
  'user.readAll': ['operator'],
  /** Disable or enable an account. */
  'user.manage': ['operator'],
  /** 运营管理 › 团队: list every team (its name, owner and size; not its members' data). */
  'team.readAll': ['operator'],
  /** 运营管理 › 团队 › 解散: dissolve any team, with a reason (audited; the members are told). */
  'team.dissolveAny': ['operator'],
  /** 审计日志: read every operator action (nobody may change one). */
  'audit.read': ['operator'],
  /** 运营管理 › 分中心: read and change a center's status, notice, packages and prices. */
  'center.manage': ['operator'],
  /** 运营管理 › 计量对账: accounting against draws, per center and day, every job's difference (issue 25). */
  'metering.reconcile': ['operator'],
  /** 运营管理 › 平台概览: counts of accounts, cards in use per center, card-hours sold/granted/consumed per day. */
  'overview.read': ['operator'],
  /** A team: its detail and members (non-members get 1205, as for a missing team). */
  'team.read': ['teamMember'],
  /** Rename or describe it, invite, withdraw an invitation, remove a member whose role is `member`. */
  'team.manage': ['teamAdmin'],
  /** Remove an admin, change a member's role, transfer ownership, dissolve the team. */
  'team.own': ['teamOwner'],
  /** Leave it (the owner is refused by the service: 2605, transfer first). */
  'team.leave': ['teamMember'],
  /** An invitation: its invitee (the resource's owner) and the team's owner and admins. */
  'team.invitation.read': ['owner', 'teamAdmin'],
  /** Accept or decline it: only the invitee. */
  'team.invitation.answer': ['owner'],
} as const satisfies Record<string, readonly Condition[]>;

export type Action = keyof typeof RULES;

/** Whether `p` may do `action` (to `resource`, for the actions that have one). Pure: no query. */
export function allowed(p: Pick<Principal, 'userId' | 'roles'>, action: Action, resource?: Resource): boolean {
  return (RULES[action] as readonly Condition[]).some((c) => {
    switch (c) {
      case 'owner':
        return resource !== undefined && resource.ownerId === p.userId;
      case 'sharee':
        return resource?.sharees?.includes(p.userId) ?? false;
      case 'public':
        return resource?.public === true;
      case 'teamMember':
        return resource?.team?.roles.has(p.userId) ?? false;
      case 'teamAdmin': {
        const role = resource?.team?.roles.get(p.userId);
        return role === 'owner' || role === 'admin';
      }
      case 'teamOwner':
        return resource?.team?.roles.get(p.userId) === 'owner';
      default:
        return p.roles.includes(c);
    }
  });
}

/** Whether the resource is the principal's own (the "mine" flag of lists; the owner's side of a conversation). */
export function owns(p: Pick<Principal, 'userId'>, resource: Pick<Resource, 'ownerId'>): boolean {
  return resource.ownerId === p.userId;
}
