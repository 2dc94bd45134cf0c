import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminTeamApi, AdminTeamApiSchemas, ErrorCode, TEAM_SPACE_REFUSED, TeamApi, TeamApiSchemas } from '@suanli/contracts';
import { AppError } from '../../errors';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { TeamInvitationService } from './invitation.service';
import type { TeamService } from './team.service';

/** Registered under TEAM_BASE. */
export function teamRoutes(teams: TeamService, invitations: TeamInvitationService, accounts: Pick<ClusterAccountService, 'ensure'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      TeamApi,
      TeamApiSchemas,
      {
        list: async (req) => ok(await teams.list(principal(req))),
        create: async (req) => ok(await teams.create(principal(req), req.body)),
        detail: async (req) => ok(await teams.detail(principal(req), req.params.id)),
        update: async (req) => ok(await teams.update(principal(req), req.params.id, req.body)),
        invite: async (req) => ok(await invitations.invite(principal(req), req.params.id, req.body.username)),
        setRole: async (req) => ok(await teams.setRole(principal(req), req.params.id, req.params.userId, req.body.role)),
        removeMember: async (req) => ok(await teams.removeMember(principal(req), req.params.id, req.params.userId)),
        leave: async (req) => ok(await teams.leave(principal(req), req.params.id)),
        transfer: async (req) => ok(await teams.transfer(principal(req), req.params.id, req.body.userId)),
        dissolve: async (req) => ok(await teams.dissolve(principal(req), req.params.id)),
        myInvitations: async (req) => ok(await invitations.myInvitations(principal(req))),
        invitation: async (req) => ok(await invitations.invitation(principal(req), req.params.id)),
        accept: async (req) => ok(await invitations.accept(principal(req), req.params.id)),
        decline: async (req) => ok(await invitations.decline(principal(req), req.params.id)),
        cancel: async (req) => ok(await invitations.cancel(principal(req), req.params.id)),
        setLimit: async (req) => ok(await teams.setLimit(principal(req), req.params.id, req.params.userId, req.body.cardHours ?? null)),
        // A standalone file service asks this for 文件管理's team folder (ADR 0018): members only (1205).
        agentSpace: async (req) => {
          const p = principal(req);
          // The same answer as the in-process file service gives a non-member (or a team that is gone).
          if (!(await teams.usesSpace(p, req.query.teamId))) throw new AppError(ErrorCode.NOT_FOUND, TEAM_SPACE_REFUSED);
          const a = await accounts.ensure(p.userId, req.query.subCenterId);
          return ok({ account: a.account, status: a.status });
        },
      },
      ['team'],
    );
  };
}

/** 运营管理 › 团队, registered under ADMIN_BASE: operators only (1020 before validation). */
export function teamAdminRoutes(teams: TeamService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      AdminTeamApi,
      AdminTeamApiSchemas,
      {
        page: async (req) => ok(await teams.adminPage(principal(req), req.body)),
        dissolve: async (req) => ok(await teams.dissolveAny(principal(req), req.params.id, req.body.reason, req.ip)),
      },
      ['admin'],
    );
  };
}
