import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_BASE, TRAINING_BASE, type Team, type TeamDetail, type TeamInvitation, type Task } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { registerAndLogin } from '../../../test/users';
import { workerSlurmHarness } from '../../../test/slurm-worker';

const { clusters } = workerSlurmHarness();

/** Runs a shell command as a cluster account (a real Linux user of the harness): its stdout, or null when refused. */
const runAs = (account: string, script: string) => {
  const r = spawnSync('runuser', ['-u', account, '--', 'sh', '-c', script], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
};

/**
 * Issue 21 acceptance 3 (ADR 0018) on a real Slurm cluster: the team's folder on the cluster's storage is read
 * and written by its members' jobs — each reads what the other wrote, whatever their umask — and a non-member's
 * account cannot list, read or write it; a member who leaves is refused at once, and a member whose account on
 * the center is made only after joining is let in.
 */
describe('the team storage area with Slurm jobs', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-team-area-slurm-'));
    t = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, dir), clock: Date.now });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const teamCall = async <T>(method: 'GET' | 'POST', url: string, token: string, payload?: object) => {
    const r = body<T>(await t.app.inject({ method, url: `${TEAM_BASE}${url}`, headers: { token }, payload }));
    expect(r.message.code, r.message.message).toBe(0);
    return r.data;
  };
  /** The user's cluster account on slurm-a with a work folder it owns (as the file service makes them). */
  const accountOf = async (userId: string) => {
    const acc = await t.app.ctx.clusterAccounts.ensure(userId, 'slurm-a');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
    fs.chownSync(path.join(acc.homeDir, 'work'), acc.uid, acc.uid);
    return acc;
  };
  const run = async (token: string, homeDir: string, name: string, command: string) => {
    const res = body<Task>(
      await t.app.inject({
        method: 'POST',
        url: `${TRAINING_BASE}/tasks`,
        headers: { token },
        payload: { name, type: 'train', subCenterId: 'slurm-a', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command, workDir: '/work', env: [], maxDurationMinutes: 5, mounts: [] },
      }),
    );
    expect(res.message.code, res.message.message).toBe(0);
    const get = async () => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${res.data.id}`, headers: { token } })).data;
    await expect.poll(async () => (await get()).state, { timeout: 60_000, interval: 500 }).toBe('SUCCEEDED');
    return fs.readFileSync(path.join(homeDir, (await get()).logPath), 'utf8');
  };

  it("two members' jobs write into the team folder and read each other's files; a non-member cannot; a leaver is refused", async () => {
    const owner = await registerAndLogin(t.app);
    const member = await registerAndLogin(t.app);
    const stranger = await registerAndLogin(t.app);
    const ownerAcc = await accountOf(owner.user.id);
    const strangerAcc = await accountOf(stranger.user.id);

    const team = await teamCall<Team>('POST', '/teams', owner.token, { name: '共享课题组' });
    const inv = await teamCall<TeamInvitation>('POST', `/teams/${team.id}/invitations`, owner.token, { username: member.user.username });
    await teamCall('POST', `/invitations/${inv.id}/accept`, member.token);
    // The member's account on the cluster is made only now, after joining: it is let into the folder then.
    const memberAcc = await accountOf(member.user.id);
    expect(new Set([ownerAcc.account, memberAcc.account, strangerAcc.account]).size).toBe(3);

    const detail = await teamCall<TeamDetail>('GET', `/teams/${team.id}`, member.token);
    const area = detail.areas.find((a) => a.subCenterId === 'slurm-a')!.path;
    expect(area).toBe(path.join(path.dirname(path.dirname(ownerAcc.homeDir)), 'teams', team.id));
    expect(fs.statSync(area).isDirectory()).toBe(true);

    // The owner's job writes a file and a folder with a strict umask; the member's job reads them and writes back.
    const ownerLog = await run(owner.token, ownerAcc.homeDir, '写团队空间', `umask 077; whoami; echo from-owner > "${area}/owner.txt"; mkdir -p "${area}/data"; echo row1 > "${area}/data/rows.csv"; echo WROTE`);
    expect(ownerLog.split('\n')).toEqual(expect.arrayContaining([ownerAcc.account, 'WROTE']));
    const memberLog = await run(
      member.token,
      memberAcc.homeDir,
      '读写团队空间',
      `umask 077; whoami; cat "${area}/owner.txt"; echo row2 >> "${area}/data/rows.csv" && echo APPENDED; echo from-member > "${area}/member.txt"`,
    );
    expect(memberLog.split('\n')).toEqual(expect.arrayContaining([memberAcc.account, 'from-owner', 'APPENDED']));
    const ownerRead = await run(owner.token, ownerAcc.homeDir, '读成员文件', `cat "${area}/member.txt"; cat "${area}/data/rows.csv"`);
    expect(ownerRead.split('\n')).toEqual(expect.arrayContaining(['from-member', 'row1', 'row2']));
    // Each file is its writer's.
    expect(fs.statSync(path.join(area, 'owner.txt')).uid).toBe(ownerAcc.uid);
    expect(fs.statSync(path.join(area, 'member.txt')).uid).toBe(memberAcc.uid);

    // A non-member's account: nothing — not the listing, not a file, not a write; nor `nobody`.
    expect(runAs(memberAcc.account, `cat "${area}/owner.txt"`)).toBe('from-owner\n');
    expect(runAs(strangerAcc.account, `ls "${area}"`)).toBeNull();
    expect(runAs(strangerAcc.account, `cat "${area}/owner.txt"`)).toBeNull();
    expect(runAs(strangerAcc.account, `cat "${area}/data/rows.csv"`)).toBeNull();
    expect(runAs(strangerAcc.account, `echo x > "${area}/stranger.txt"`)).toBeNull();
    expect(runAs(strangerAcc.account, `ls "${path.dirname(area)}"`)).toBeNull();
    expect(runAs('nobody', `cat "${area}/owner.txt"`)).toBeNull();
    expect(fs.existsSync(path.join(area, 'stranger.txt'))).toBe(false);
    // And a non-member's Slurm job, given the path.
    const snoop = await run(stranger.token, strangerAcc.homeDir, '偷看团队空间', `if cat "${area}/owner.txt"; then echo READ; else echo DENIED; fi`);
    expect(snoop).toContain('DENIED');
    expect(snoop).not.toContain('from-owner');

    // The member leaves: refused at once; the owner still reads and writes.
    await teamCall('POST', `/teams/${team.id}/leave`, member.token);
    expect(runAs(memberAcc.account, `cat "${area}/owner.txt"`)).toBeNull();
    expect(runAs(memberAcc.account, `cat "${area}/member.txt"`)).toBeNull();
    expect(runAs(memberAcc.account, `echo x > "${area}/after.txt"`)).toBeNull();
    expect(runAs(ownerAcc.account, `cat "${area}/member.txt" && echo more >> "${area}/data/rows.csv" && echo OK`)).toBe('from-member\nOK\n');
  });
});
