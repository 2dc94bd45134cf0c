import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BASE, type CompPowers, type OutsideJobPage } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { installedLogin, ssh } from '../../../test/ssh-login';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import { HELD_REASON, OUTSIDE_STOP_REASON } from './outside-job.service';

const { clusters } = workerSlurmHarness();
const A = 'slurm-a';
const c = clusters.find((x) => x.id === 'a')!;
const env = { ...process.env, SLURM_CONF: c.slurmConf };
const slurm = (cmd: string, args: string[]) => execFileSync(cmd, args, { env, encoding: 'utf8' }).trim();

/** The GrpTRES on the account's association, as `sacctmgr` shows it ('' = no limit). */
const grpTres = (acct: string) => slurm('sacctmgr', ['-n', '-P', 'show', 'assoc', 'where', `user=${acct}`, `cluster=${c.cluster}`, `account=${c.account}`, 'format=GrpTRES']);

function job(jobId: string): { state: string; reason: string } {
  const out = slurm('squeue', ['-h', '-j', jobId, '-o', '%T|%r']);
  if (!out) return { state: 'GONE', reason: '' };
  const [state, reason] = out.split('|');
  return { state, reason };
}

/**
 * Issue 25, acceptance 2, on the Slurm harness: a user with no compute power left logs in over SSH with a key
 * pair installed through the console and submits with `sbatch`, and Slurm holds the job with its limit reason — set by the gateway's own metering leader, nobody touching Slurm; the console's balance
 * says why in Chinese. An operator's grant through the API lifts the limit, and the held job starts. The
 * center has `scheduler.adminUser: root` (the harness's Slurm admin; a site names an Operator user).
 */
describe('the balance enforced by Slurm, end to end (issue 25, acceptance 2)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-limit-slurm-'));
  let t: TestApp;
  let user: { id: string; token: string; username: string };
  let op: { id: string; token: string };
  let acct = '';
  let held = '';
  let login: Awaited<ReturnType<typeof installedLogin>>;

  const call = async (token: string, method: 'GET' | 'POST', url: string, payload?: object) => body(await t.app.inject({ method, url, headers: { token }, payload }));
  const balance = async () => (await call(user.token, 'GET', `${ORDER_BASE}/comp-powers/${user.id}`)).data as CompPowers;

  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      centersFile: writeSlurmCentersFile({ clusters, workDir: dir }, dir, (x) => ({
        scheduler: { kind: 'slurm', cluster: x.cluster, restUrl: x.restUrl, apiVersion: 'v0.0.38', jwtKeyFile: x.jwtKeyFile, account: x.account, adminUser: 'root' },
      })),
      clock: Date.now,
      compute: { pollIntervalMs: 500, leaseMs: 4000, submitRetryMs: 3000 },
      // No welcome grant: the user starts with nothing. A 1 s period: the leader's pass follows each poll.
      metering: { periodMs: 1000 },
    });
    const created = await t.app.users.createAccount({ username: 'limit_slurm', password: 'Passw0rd-test', nickname: '限额' });
    user = { id: created!.id, username: 'limit_slurm', token: (await t.app.ctx.sessions.create(created!.id)).token };
    const opUser = await t.app.users.createAccount({ username: 'limit_op', password: 'Passw0rd-test', nickname: '运营' });
    await t.app.ctx.access.grant(opUser!.id, 'operator');
    op = { id: opUser!.id, token: (await t.app.ctx.sessions.create(opUser!.id)).token };
    acct = (await t.app.ctx.clusterAccounts.ensure(user.id, A)).account;
    // Started as a gateway is (the poller, and the metering passes after its polls, run from here on).
    await t.app.ready();
  });
  afterAll(async () => {
    await t?.close();
    // Whatever happened, the pool account is left without a limit and without a job for the next files.
    if (held) execFileSync('scancel', [held], { env, stdio: 'ignore' });
    if (acct) slurm('sacctmgr', ['-i', 'modify', 'user', 'where', `name=${acct}`, `cluster=${c.cluster}`, `account=${c.account}`, 'set', 'GrpTRES=gres/gpu=-1']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('no compute power: sbatch over SSH is held by Slurm (AssocGrpGRES), the console says why; a grant lets it start', async () => {
    // The metering leader's passes set the limit on the association through slurmrestd, as `root`, and record
    // it once Slurm accepted it — which is when the console shows it.
    await expect.poll(async () => (await balance()).held, { timeout: 20_000, interval: 500 }).toEqual([{ subCenterId: A, subCenterName: '测试集群甲', account: acct }]);
    expect(grpTres(acct)).toBe(`gres/${c.gres[0].name}=0`);
    expect((await balance()).total).toBe('0.00');

    login = await installedLogin(t, user.token, A, c.sshPort, dir);
    expect(login.account).toBe(acct);
    const sb = ssh(login, acct, `sbatch --parsable -J 余额不足 -p ${c.partitions[0]} --gres=${c.gres[0].name}:${c.gres[0].type}:1 -o /dev/null --wrap 'sleep 2'`);
    expect(sb.status, sb.err).toBe(0);
    held = sb.out.split(';')[0];
    await expect.poll(() => job(held), { timeout: 10_000, interval: 250 }).toEqual({ state: 'PENDING', reason: 'AssocGrpGRES' });
    // The console lists it as a waiting 外部作业 and says why in Chinese.
    const outside = async () => (await call(user.token, 'POST', `${ORDER_BASE}/outside-jobs/action/page`, { pageNum: 1, pageSize: 10 })).data as OutsideJobPage;
    await expect.poll(async () => (await outside()).list.map((j) => [j.jobId, j.state, j.reason]), { timeout: 15_000, interval: 500 }).toEqual([[held, 'QUEUED', HELD_REASON]]);
    // Held across scheduling passes and the gateway's own passes (which leave the limit as it is).
    await new Promise((r) => setTimeout(r, 4_000));
    expect(job(held)).toEqual({ state: 'PENDING', reason: 'AssocGrpGRES' });

    // An operator grants compute power through the API: the limit is gone when the request returns.
    const g = await call(op.token, 'POST', `${ORDER_BASE}/comp-powers/grant`, { username: user.username, subCenterId: A, cardTypeId: 'a100-80g', cardHours: 1, validDays: 1, reason: '验收' });
    expect(g.message.code, g.message.message).toBe(0);
    expect(grpTres(acct)).toBe('');
    expect((await balance()).held).toEqual([]);
    // …and the held job starts by itself and completes.
    await expect.poll(() => job(held), { timeout: 40_000, interval: 250 }).toSatisfy((j: { state: string }) => ['RUNNING', 'COMPLETING', 'GONE'].includes(j.state));
    await expect.poll(() => slurm('sacct', ['-X', '-n', '-P', '-M', c.cluster, '-j', held, '-o', 'State']), { timeout: 30_000, interval: 500 }).toBe('COMPLETED');
    await expect.poll(async () => (await outside()).list.map((j) => [j.jobId, j.state, j.reason]), { timeout: 15_000, interval: 500 }).toEqual([[held, 'SUCCEEDED', '']]);
    held = '';
    // The gateway's later passes keep it open (the grant is there).
    await new Promise((r) => setTimeout(r, 2_000));
    expect(grpTres(acct)).toBe('');
  }, 120_000);

  it('a job running over SSH when the power runs out is ended by the platform and the account is held again', async () => {
    // What the grant left, cut to 20 card-seconds: the pass draws the running job down to nothing.
    await t.app.ctx.db.updateTable('comp_power_buckets').set({ remaining: 20 }).where('owner_id', '=', user.id).execute();
    const sb = ssh(login, acct, `sbatch --parsable -J 用到没电 -p ${c.partitions[0]} --gres=${c.gres[0].name}:${c.gres[0].type}:1 -o /dev/null --wrap 'sleep 300'`);
    expect(sb.status, sb.err).toBe(0);
    held = sb.out.split(';')[0];
    await expect.poll(() => job(held).state, { timeout: 20_000, interval: 250 }).toBe('RUNNING');
    // Drawn while it runs, then cancelled in Slurm as the account once nothing is left (not 300 s later).
    await expect.poll(() => slurm('sacct', ['-X', '-n', '-P', '-M', c.cluster, '-j', held, '-o', 'State']).split(' ')[0], { timeout: 60_000, interval: 1000 }).toBe('CANCELLED');
    const row = async () => (await call(user.token, 'POST', `${ORDER_BASE}/outside-jobs/action/page`, { pageNum: 1, pageSize: 10 })).data as OutsideJobPage;
    await expect.poll(async () => (await row()).list.find((j) => j.jobId === held)?.state, { timeout: 15_000, interval: 500 }).toBe('UNDERPOWERED');
    const ended = (await row()).list.find((j) => j.jobId === held)!;
    expect(ended.reason).toBe(OUTSIDE_STOP_REASON);
    expect(ended.consumedSeconds).toBeGreaterThanOrEqual(20);
    held = '';
    // Nothing left: the account is held again, and the console says so.
    await expect.poll(() => grpTres(acct), { timeout: 15_000, interval: 500 }).toBe(`gres/${c.gres[0].name}=0`);
    expect((await balance()).held).toEqual([{ subCenterId: A, subCenterName: '测试集群甲', account: acct }]);
  }, 120_000);
});
