import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DATASET_BASE, TRAINING_BASE, type AssetDetail, type Task } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { registerAndLogin } from '../../../test/users';

const { clusters } = inject('slurm');

/**
 * Issue 11 criterion 2 on a real Slurm cluster: a job running as the user's cluster account reads a file of a
 * mounted dataset version and writes into its own output, and cannot write into the mount (the version is
 * the platform's, 0444/0555). The same with the local executor: asset.api.test.ts.
 */
describe('dataset versions mounted into Slurm jobs', () => {
  let t: TestApp;
  let token: string;
  let dir: string;
  let home: string;
  let uid: number;
  let account: string;

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
  });
});
