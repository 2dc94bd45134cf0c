import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_BASE, TRAINING_BASE, type AssetDetail, type Task } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { registerAndLogin } from '../../../test/users';
import { workerSlurmHarness } from '../../../test/slurm-worker';

const { clusters } = workerSlurmHarness();

/** `cat` as a cluster account (a real Linux user of the harness); null when the kernel refuses. */
const readAs = (account: string, file: string) => {
  const r = spawnSync('runuser', ['-u', account, '--', 'cat', file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
};

/**
 * Issue 11 criterion 2 on a real Slurm cluster: a job running as the user's cluster account reads a file of a
 * mounted dataset version and writes into its own output, and cannot write into the mount (the version is
 * the platform's, 0444/0555). The same with the local executor: asset.api.test.ts.
 *
 * Issue 17 item 4 (ADR 0013): on the cluster's shared disk a private version is readable by the owner's
 * account and the accounts it is shared with — another account's shell or job cannot read it, a shared
 * user's Slurm job mounts it, and after unsharing that account is refused again.
 */
describe('dataset versions mounted into Slurm jobs', () => {
  let t: TestApp;
  let token: string;
  let dir: string;
  let home: string;
  let uid: number;
  let account: string;
  let versionFile: string;
  let datasetId: string;
  let versionId: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-assets-slurm-'));
    t = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, dir), clock: Date.now });
    const u = await registerAndLogin(t.app);
    token = u.token;
    const acc = await t.app.ctx.clusterAccounts.ensure(u.user.id, 'slurm-a');
    ({ homeDir: home, uid, account } = acc);
    // The user's folder and work directory, owned by the account (as the file service makes them).
    for (const d of ['data/ds', 'work']) {
      fs.mkdirSync(path.join(home, d), { recursive: true });
      fs.chownSync(path.join(home, d), uid, uid);
    }
    fs.writeFileSync(path.join(home, 'data/ds/labels.txt'), 'cat\ndog\n');
    fs.chownSync(path.join(home, 'data/ds/labels.txt'), uid, uid);
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a job reads the mounted version and writes its own output as the account; writing into the mount fails', async () => {
    const created = body<AssetDetail>(
      await t.app.inject({ method: 'POST', url: `${DATASET_BASE}/datasets`, headers: { token }, payload: { name: '集群数据', source: { subCenterId: 'slurm-a', path: '/data/ds' } } }),
    );
    expect(created.message.code, created.message.message).toBe(0);
    await t.app.assets.datasets.idle();
    const d = body<AssetDetail>(await t.app.inject({ method: 'GET', url: `${DATASET_BASE}/datasets/${created.data.id}`, headers: { token } })).data;
    const v = d.versions[0];
    expect(v.state).toBe('ready');

    const res = body<Task>(
      await t.app.inject({
        method: 'POST',
        url: `${TRAINING_BASE}/tasks`,
        headers: { token },
        payload: {
          name: '读挂载',
          type: 'train',
          subCenterId: 'slurm-a',
          cardTypeId: 'a100-80g',
          cardNum: 1,
          nodeNum: 1,
          imageId: 'pytorch-2.3-cuda12',
          command: 'whoami; cat "$SUANLI_DATASET_1/labels.txt" > read.txt; if echo x > "$SUANLI_DATASET_1/labels.txt" 2>/dev/null || touch "$SUANLI_DATASET_1/new" 2>/dev/null; then echo WROTE; else echo READONLY; fi',
          workDir: '/work',
          env: [],
          maxDurationMinutes: 5,
          mounts: [{ kind: 'dataset', assetId: d.id, versionId: v.id }],
        },
      }),
    );
    expect(res.message.code, res.message.message).toBe(0);
    const stateOf = async () => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${res.data.id}`, headers: { token } })).data.state;
    await expect.poll(stateOf, { timeout: 60_000, interval: 500 }).toBe('SUCCEEDED');

    const read = path.join(home, 'work/read.txt');
    expect(fs.readFileSync(read, 'utf8')).toBe('cat\ndog\n');
    expect(fs.statSync(read).uid).toBe(uid);
    const log = fs.readFileSync(path.join(home, res.data.logPath), 'utf8');
    expect(log.split('\n')).toEqual(expect.arrayContaining([account, 'READONLY']));
    const versionDir = res.data.mounts[0].path;
    expect(fs.readdirSync(versionDir)).toEqual(['labels.txt']);
    expect(fs.readFileSync(path.join(versionDir, 'labels.txt'), 'utf8')).toBe('cat\ndog\n');
    versionFile = path.join(versionDir, 'labels.txt');
    datasetId = d.id;
    versionId = v.id;
  });

  it('another account cannot read the private version on disk, a shared account can and its Slurm job mounts it; unshared, it cannot again', async () => {
    expect(versionFile).toBeTruthy();
    // Two more users with accounts on the cluster: one it gets shared with, one it never is.
    const other = await registerAndLogin(t.app);
    const sharee = await registerAndLogin(t.app);
    const otherAcc = await t.app.ctx.clusterAccounts.ensure(other.user.id, 'slurm-a');
    const shareeAcc = await t.app.ctx.clusterAccounts.ensure(sharee.user.id, 'slurm-a');
    expect(new Set([account, otherAcc.account, shareeAcc.account]).size).toBe(3);
    // Their work directories, owned by the accounts (as the file service makes them).
    for (const acc of [otherAcc, shareeAcc]) {
      fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
      fs.chownSync(path.join(acc.homeDir, 'work'), acc.uid, acc.uid);
    }
    expect(readAs(account, versionFile)).toBe('cat\ndog\n');
    expect(readAs(otherAcc.account, versionFile)).toBeNull();
    expect(readAs(shareeAcc.account, versionFile)).toBeNull();
    expect(readAs('nobody', versionFile)).toBeNull();

    const train = (token: string, name: string, command: string, mounts: object[]) =>
      t.app
        .inject({
          method: 'POST',
          url: `${TRAINING_BASE}/tasks`,
          headers: { token },
          payload: { name, type: 'train', subCenterId: 'slurm-a', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command, workDir: '/work', env: [], maxDurationMinutes: 5, mounts },
        })
        .then((r) => body<Task>(r));
    const finished = async (token: string, id: string) => {
      const stateOf = async () => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}`, headers: { token } })).data;
      await expect.poll(async () => (await stateOf()).state, { timeout: 60_000, interval: 500 }).toBe('SUCCEEDED');
      return stateOf();
    };
    // A job of the other user on the same cluster, given the path: the kernel refuses it.
    const snoop = await train(other.token, '偷看', `if cat "${versionFile}"; then echo READ; else echo DENIED; fi`, []);
    expect(snoop.message.code, snoop.message.message).toBe(0);
    const snooped = await finished(other.token, snoop.data.id);
    const snoopLog = fs.readFileSync(path.join(otherAcc.homeDir, snooped.logPath), 'utf8');
    expect(snoopLog).toContain('DENIED');
    expect(snoopLog).not.toContain('cat\ndog');

    // Shared: the sharee's account reads it, and their Slurm job mounts it.
    const shared = body<AssetDetail>(await t.app.inject({ method: 'POST', url: `${DATASET_BASE}/datasets/${datasetId}/shares`, headers: { token }, payload: { usernames: [sharee.user.username] } }));
    expect(shared.message.code, shared.message.message).toBe(0);
    expect(readAs(shareeAcc.account, versionFile)).toBe('cat\ndog\n');
    expect(readAs(otherAcc.account, versionFile)).toBeNull();
    const job = await train(sharee.token, '读共享', 'whoami; cat "$SUANLI_DATASET_1/labels.txt" > shared.txt', [{ kind: 'dataset', assetId: datasetId, versionId }]);
    expect(job.message.code, job.message.message).toBe(0);
    const ran = await finished(sharee.token, job.data.id);
    expect(fs.readFileSync(path.join(shareeAcc.homeDir, 'work/shared.txt'), 'utf8')).toBe('cat\ndog\n');
    expect(fs.statSync(path.join(shareeAcc.homeDir, 'work/shared.txt')).uid).toBe(shareeAcc.uid);
    expect(fs.readFileSync(path.join(shareeAcc.homeDir, ran.logPath), 'utf8').split('\n')).toContain(shareeAcc.account);

    // Unshared: the sharee's account is refused again (the owner's still reads).
    const unshared = body<AssetDetail>(await t.app.inject({ method: 'DELETE', url: `${DATASET_BASE}/datasets/${datasetId}/shares/${sharee.user.id}`, headers: { token } }));
    expect(unshared.message.code, unshared.message.message).toBe(0);
    expect(readAs(shareeAcc.account, versionFile)).toBeNull();
    expect(readAs(account, versionFile)).toBe('cat\ndog\n');
  });
});
