/** 团队 calls (TEAM_BASE) and the user search of the invite dialog, one function per call. */
import { RecordApi, TeamApi, UserApi, type TeamCreate, type TeamUpdate } from '@suanli/contracts';
import { call } from '../../app/request';

export const listTeams = () => call(TeamApi.list);
export const createTeam = (body: TeamCreate) => call(TeamApi.create, { body });
export const getTeam = (id: string) => call(TeamApi.detail, { params: { id } });
export const updateTeam = (id: string, body: TeamUpdate) => call(TeamApi.update, { params: { id }, body });
export const inviteMember = (id: string, username: string) => call(TeamApi.invite, { params: { id }, body: { username } });
export const setMemberRole = (id: string, userId: string, role: 'admin' | 'member') => call(TeamApi.setRole, { params: { id, userId }, body: { role } });
export const removeMember = (id: string, userId: string) => call(TeamApi.removeMember, { params: { id, userId } });
export const leaveTeam = (id: string) => call(TeamApi.leave, { params: { id } });
export const transferTeam = (id: string, userId: string) => call(TeamApi.transfer, { params: { id }, body: { userId } });
export const dissolveTeam = (id: string) => call(TeamApi.dissolve, { params: { id } });
export const myInvitations = () => call(TeamApi.myInvitations);
export const getInvitation = (id: string) => call(TeamApi.invitation, { params: { id } });
export const acceptInvitation = (id: string) => call(TeamApi.accept, { params: { id } });
export const declineInvitation = (id: string) => call(TeamApi.decline, { params: { id } });
export const cancelInvitation = (id: string) => call(TeamApi.cancel, { params: { id } });
/** Accounts matching a keyword (username or nickname), for choosing whom to invite. */
export const searchUsers = (keyword: string) => call(UserApi.list, { body: { pageNum: 1, pageSize: 10, keyword } });
/** 团队算力 (ADR 0017): balance, members' usage this month, records; limits set by owners and admins. */
export const teamCompPowers = (id: string) => call(RecordApi.teamCompPowers, { params: { id } });
export const teamUsage = (teamId: string) => call(RecordApi.teamUsage, { body: { teamId } });
export const teamConsumeRecords = (teamId: string) => call(RecordApi.page, { body: { type: 'consume', teamId, pageNum: 1, pageSize: 10 } });
/** `cardHours` undefined: no limit. */
export const setMemberLimit = (id: string, userId: string, cardHours: number | undefined) =>
  call(TeamApi.setLimit, { params: { id, userId }, body: cardHours === undefined ? {} : { cardHours } });
