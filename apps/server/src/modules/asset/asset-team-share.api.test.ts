import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_BASE, MESSAGE_BASE, MODEL_BASE, TEAM_BASE, TRAINING_BASE, type Asset, type AssetDetail, type AssetPage, type MountableVersion, type Team, type TeamDetail, type TeamInvitation, type Task } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { registerAndLogin } from '../../../test/users';

/** What a cluster account's uid reads of `file` (the api tier's accounts have no passwd entries); null when refused. */
const readAs = (uid: number, file: string) => {
  const r = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'cat', file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
};
/** Does `sh -c script` succeed as the uid. */
const runsAs = (uid: number, script: string) => spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'sh', '-c', script]).status === 0;

type U = { token: string; id: string; username: string };

/**
 * Issue 21 item 4 (ADR 0018) through the API on both engines: a dataset shared with a team — every current
 * member reads, lists, browses and mounts it and their account reads its folder; a non-member gets 1205 and
 * nothing on disk; the owner shares only with a team they are in (1205 otherwise), others cannot share
 * (2307); a member who leaves (or is removed) loses it at once, in the API and on disk; 团队详情's list. And the
 * team's own storage folder on the embedded center follows the membership.
 */
describe.each(engines)('datasets and models shared with a team (%s)', (engine) => {
  let t: TestApp;
  let owner: U;
  let member: U;
  let admin: U;
  let stranger: U;
  let teamId: string;
  let otherTeamId: string;
  let datasetId: string;
  let versionId: string;
  let file: string;
  const uids = new Map<string, number>();

  const as = (base: string) => async <T = unknown>(u: U, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    body<T>(await t.app.inject({ method, url: `${base}${url}`, headers: { token: u.token }, payload }));
  const ds = as(DATASET_BASE);
  const md = as(MODEL_BASE);
  const team = as(TEAM_BASE);
  const join = async (who: U, id: string, by: U) => {
    const inv = await team<TeamInvitation>(by, 'POST', `/teams/${id}/invitations`, { username: who.username });
    expect(inv.message.code, inv.message.message).toBe(0);
    expect((await team(who, 'POST', `/invitations/${inv.data.id}/accept`)).message.code).toBe(0);
  };
  const uidOf = async (u: U) => {
    const uid = (await t.app.ctx.clusterAccounts.ensure(u.id, 'sz-a100')).uid;
    uids.set(u.id, uid);
    return uid;
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    const reg = async (): Promise<U> => {
      const r = await registerAndLogin(t.app);
      return { token: r.token, id: r.user.id, username: r.user.username };
    };
    [owner, member, admin, stranger] = [await reg(), await reg(), await reg(), await reg()];
    // The accounts reach the storage root on a center (what ADR 0013/0018 decide is below it).
    fs.chmodSync(t.dataDir, 0o711);
    const home = (await t.app.ctx.clusterAccounts.ensure(owner.id, 'sz-a100')).homeDir;
    fs.mkdirSync(path.join(home, 'data/labels'), { recursive: true });
    fs.writeFileSync(path.join(home, 'data/labels/l.txt'), 'cat\n');
    const created = await ds<AssetDetail>(owner, 'POST', '/datasets', { name: '团队数据', source: { subCenterId: 'sz-a100', path: '/data/labels' } });
    expect(created.message.code, created.message.message).toBe(0);
    await t.app.assets.datasets.idle();
    datasetId = created.data.id;
    versionId = (await ds<AssetDetail>(owner, 'GET', `/datasets/${datasetId}`)).data.versions[0].id;
    file = path.join(t.dataDir, 'centers/sz-a100/.assets', datasetId, versionId, 'l.txt');
    for (const u of [owner, member, admin, stranger]) await uidOf(u);

    const created2 = await team<Team>(owner, 'POST', '/teams', { name: '视觉组' });
    teamId = created2.data.id;
    await join(member, teamId, owner);
    await join(admin, teamId, owner);
    // A team the owner is not in.
    otherTeamId = (await team<Team>(stranger, 'POST', '/teams', { name: '别的组' })).data.id;
  });
  afterAll(() => t.close());

  it('before the share a member is refused like anyone (1205) and their account cannot read the folder', async () => {
    expect((await ds(member, 'GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect(readAs(uids.get(member.id)!, file)).toBeNull();
    expect(readAs(uids.get(owner.id)!, file)).toBe('cat\n');
  });

  it('the owner shares only with a team they are in; nobody else shares it', async () => {
    expect((await ds(owner, 'POST', `/datasets/${datasetId}/team-shares`, { teamId: otherTeamId })).message.code).toBe(1205);
    expect((await ds(owner, 'POST', `/datasets/${datasetId}/team-shares`, { teamId: 'no-such-team' })).message.code).toBe(1205);
    expect((await ds(owner, 'POST', `/datasets/${datasetId}/team-shares`, {})).message.code).toBe(1005);
    // A member of the team who does not own the asset cannot share it (they cannot even read it yet).
    expect((await ds(member, 'POST', `/datasets/${datasetId}/team-shares`, { teamId })).message.code).toBe(1205);

    const events: { userId: string; businessType: string; data: unknown }[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => events.push({ userId, ...e }));
    const shared = await ds<AssetDetail>(owner, 'POST', `/datasets/${datasetId}/team-shares`, { teamId });
    expect(shared.message.code, shared.message.message).toBe(0);
    // Every member is told: a message (not the owner), and team.changed so 团队详情's list is read again.
    for (const u of [member, admin]) {
      const inbox = body<{ list: { title: string }[] }>(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: u.token }, payload: { pageNum: 1, pageSize: 20 } }));
      expect(inbox.data.list.map((m) => m.title)).toContain(`${owner.username} 向团队「视觉组」共享了数据集`);
    }
    expect(events.filter((e) => e.businessType === 'team.changed').map((e) => e.userId).sort()).toEqual([owner.id, member.id, admin.id].sort());
    off();
    expect(shared.data.teamShares).toEqual([{ teamId, teamName: '视觉组' }]);
    expect(shared.data.visibility).toBe('shared');
    // Twice is once.
    expect((await ds<AssetDetail>(owner, 'POST', `/datasets/${datasetId}/team-shares`, { teamId })).data.teamShares).toHaveLength(1);
  });

  it('every member reads, lists, browses and mounts it, and their accounts read the folder; a non-member gets nothing', async () => {
    for (const u of [member, admin]) {
      const d = await ds<AssetDetail>(u, 'GET', `/datasets/${datasetId}`);
      expect(d.message.code, d.message.message).toBe(0);
      // A member sees the asset, not who else it is shared with.
      expect(d.data).toMatchObject({ mine: false, shares: [], teamShares: [] });
      const page = await ds<AssetPage>(u, 'POST', '/datasets/action/page', { pageNum: 1, pageSize: 20, scope: 'shared' });
      expect(page.data.list.map((a) => a.id)).toContain(datasetId);
      const mountable = await ds<MountableVersion[]>(u, 'GET', '/datasets/action/mountable?subCenterId=sz-a100');
      expect(mountable.data.map((m) => m.versionId)).toContain(versionId);
      expect((await ds(u, 'GET', `/datasets/${datasetId}/versions/${versionId}/files?path=/`)).message.code).toBe(0);
      expect(readAs(uids.get(u.id)!, file)).toBe('cat\n');
      // Read, never write: a member cannot change or unshare it.
      expect((await ds(u, 'DELETE', `/datasets/${datasetId}/team-shares/${teamId}`)).message.code).toBe(2307);
    }
    // The owner's own 共享 list does not show their own asset.
    expect((await ds<AssetPage>(owner, 'POST', '/datasets/action/page', { pageNum: 1, pageSize: 20, scope: 'shared' })).data.list.map((a) => a.id)).not.toContain(datasetId);

    // 团队详情's list: members see it; the stranger gets 1205 for the team, and nothing of the asset.
    const listed = await ds<Asset[]>(member, 'GET', `/datasets/action/team-shared?teamId=${teamId}`);
    expect(listed.message.code, listed.message.message).toBe(0);
    expect(listed.data.map((a) => [a.id, a.name, a.ownerName])).toEqual([[datasetId, '团队数据', owner.username]]);
    expect((await md<Asset[]>(member, 'GET', `/models/action/team-shared?teamId=${teamId}`)).data).toEqual([]);
    expect((await ds(stranger, 'GET', `/datasets/action/team-shared?teamId=${teamId}`)).message.code).toBe(1205);
    expect((await ds(stranger, 'GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect((await ds<AssetPage>(stranger, 'POST', '/datasets/action/page', { pageNum: 1, pageSize: 20, scope: 'shared' })).data.list).toEqual([]);
    expect((await ds<MountableVersion[]>(stranger, 'GET', '/datasets/action/mountable')).data).toEqual([]);
    expect(readAs(uids.get(stranger.id)!, file)).toBeNull();

    // A member mounts it in a task (the local executor runs it as the member's account).
    const task = body<Task>(
      await t.app.inject({
        method: 'POST',
        url: `${TRAINING_BASE}/tasks`,
        headers: { token: member.token },
        payload: { name: '团队挂载', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'cat "$SUANLI_DATASET_1/l.txt"', workDir: '/', env: [], maxDurationMinutes: 5, mounts: [{ kind: 'dataset', assetId: datasetId, versionId }] },
      }),
    );
    expect(task.message.code, task.message.message).toBe(0);
    await expect.poll(async () => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${task.data.id}`, headers: { token: member.token } })).data.state, { timeout: 20_000, interval: 100 }).toBe('SUCCEEDED');
    // The stranger's task with the same mount is refused.
    const refused = body(
      await t.app.inject({
        method: 'POST',
        url: `${TRAINING_BASE}/tasks`,
        headers: { token: stranger.token },
        payload: { name: '偷挂载', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'true', workDir: '/', env: [], maxDurationMinutes: 5, mounts: [{ kind: 'dataset', assetId: datasetId, versionId }] },
      }),
    );
    expect(refused.message.code).toBe(1205);
  });

  it('the team folder on the center follows the membership: members read and write it, others cannot', async () => {
    const detail = (await team<TeamDetail>(member, 'GET', `/teams/${teamId}`)).data;
    const dir = detail.areas.find((a) => a.subCenterId === 'sz-a100')!.path;
    expect(dir).toBe(path.join(t.dataDir, 'centers/sz-a100/teams', teamId));
    expect(runsAs(uids.get(owner.id)!, `umask 077; echo hi > "${dir}/o.txt"`)).toBe(true);
    expect(readAs(uids.get(member.id)!, path.join(dir, 'o.txt'))).toBe('hi\n');
    expect(runsAs(uids.get(member.id)!, `echo more >> "${dir}/o.txt"`)).toBe(true);
    expect(readAs(uids.get(stranger.id)!, path.join(dir, 'o.txt'))).toBeNull();
    expect(runsAs(uids.get(stranger.id)!, `ls "${dir}"`)).toBe(false);
  });

  it('a member who leaves, or is removed, loses the dataset and both folders at once', async () => {
    expect((await team(member, 'POST', `/teams/${teamId}/leave`)).message.code).toBe(0);
    expect((await ds(member, 'GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect((await ds<MountableVersion[]>(member, 'GET', '/datasets/action/mountable')).data).toEqual([]);
    expect((await ds(member, 'GET', `/datasets/action/team-shared?teamId=${teamId}`)).message.code).toBe(1205);
    expect(readAs(uids.get(member.id)!, file)).toBeNull();
    const dir = path.join(t.dataDir, 'centers/sz-a100/teams', teamId);
    expect(readAs(uids.get(member.id)!, path.join(dir, 'o.txt'))).toBeNull();
    // The others keep it.
    expect(readAs(uids.get(admin.id)!, file)).toBe('cat\n');
    expect(readAs(uids.get(admin.id)!, path.join(dir, 'o.txt'))).toBe('hi\nmore\n');

    expect((await team(owner, 'DELETE', `/teams/${teamId}/members/${admin.id}`)).message.code).toBe(0);
    expect((await ds(admin, 'GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect(readAs(uids.get(admin.id)!, file)).toBeNull();
    expect(readAs(uids.get(admin.id)!, path.join(dir, 'o.txt'))).toBeNull();
    expect(readAs(uids.get(owner.id)!, file)).toBe('cat\n');

    // Joining again brings it back; the owner unsharing takes it away again.
    await join(member, teamId, owner);
    expect((await ds(member, 'GET', `/datasets/${datasetId}`)).message.code).toBe(0);
    expect(readAs(uids.get(member.id)!, file)).toBe('cat\n');
    const unshared = await ds<AssetDetail>(owner, 'DELETE', `/datasets/${datasetId}/team-shares/${teamId}`);
    expect(unshared.data).toMatchObject({ teamShares: [], visibility: 'private' });
    expect((await ds(member, 'GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect(readAs(uids.get(member.id)!, file)).toBeNull();
  });

  it('a dissolved team takes its shares with it: the members lose the dataset, its visibility is private again', async () => {
    expect((await ds(owner, 'POST', `/datasets/${datasetId}/team-shares`, { teamId })).data).toMatchObject({ visibility: 'shared' });
    expect(readAs(uids.get(member.id)!, file)).toBe('cat\n');
    expect((await team(owner, 'DELETE', `/teams/${teamId}`)).message.code).toBe(0);
    expect((await ds(member, 'GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect(readAs(uids.get(member.id)!, file)).toBeNull();
    expect((await ds<AssetDetail>(owner, 'GET', `/datasets/${datasetId}`)).data).toMatchObject({ teamShares: [], visibility: 'private' });
    // The team folder is closed, not deleted: only the platform reaches it.
    const dir = path.join(t.dataDir, 'centers/sz-a100/teams', teamId);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(readAs(uids.get(owner.id)!, path.join(dir, 'o.txt'))).toBeNull();
  });
});
