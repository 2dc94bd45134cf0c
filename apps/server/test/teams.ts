import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { TEAM_BASE, type Team, type TeamInvitation } from '@suanli/contracts';
import { body, type TestApp } from './harness';
import { meteringKit } from './metering';

export interface TeamUser {
  id: string;
  username: string;
  token: string;
}

/**
 * Users and teams for the team module's api tests (compute power, dissolving): users with a session and a
 * cluster account (metering's kit), the team routes as a user, and a team of owner, admin and member joined
 * through real invitations, with a stranger beside it. `prefix` keeps usernames apart between files.
 */
export function teamKit(app: () => TestApp, prefix: string) {
  const k = meteringKit(app);
  let seq = 0;
  const user = async (tag: string): Promise<TeamUser> => {
    const username = `${prefix}_${tag}_${seq++}_${randomBytes(2).toString('hex')}`;
    const created = await app().app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
    const { token } = await k.user(created!.id);
    return { id: created!.id, username, token };
  };
  const team = async (method: 'GET' | 'POST' | 'DELETE', path: string, u: TeamUser, payload?: unknown) =>
    body(await app().app.inject({ method, url: `${TEAM_BASE}${path}`, headers: { token: u.token }, payload: payload as object }));
  /** A team: owner, admin, member (through invitations), and a stranger. */
  const teamOf = async () => {
    const [owner, admin, member, stranger] = [await user('own'), await user('adm'), await user('mem'), await user('str')];
    const created = (await team('POST', '/teams', owner, { name: `课题组${seq}` })).data as Team;
    for (const u of [admin, member]) {
      const inv = (await team('POST', `/teams/${created.id}/invitations`, owner, { username: u.username })).data as TeamInvitation;
      expect((await team('POST', `/invitations/${inv.id}/accept`, u)).message.code).toBe(0);
    }
    expect((await team('POST', `/teams/${created.id}/members/${admin.id}/role`, owner, { role: 'admin' })).message.code).toBe(0);
    return { id: created.id, name: created.name, owner, admin, member, stranger };
  };
  return { user, team, teamOf };
}
