import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SLURM_BASE, isTerminal, type JobState } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * The shipped platform templates (config/slurm-templates/) run on the two real Slurm clusters of the harness
 * through the whole gateway: template → rendered sbatch script → Slurm executor → state engine → log in the
 * cluster account's home. Each job prints `id -un`, so the test sees it ran as the user's cluster account.
 */

const { clusters } = workerSlurmHarness();
const repoRoot = path.resolve(import.meta.dirname, '../../../../..');

describe('platform Slurm templates on real Slurm', () => {
  let t: TestApp;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    // A centers file of the harness's clusters, with the shipped templates beside it (where the module looks).
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-slurm-tpl-'));
    fs.symlinkSync(path.join(repoRoot, 'config/slurm-templates'), path.join(dir, 'slurm-templates'));
    const centers = clusters.map((c) => ({
      id: `slurm-${c.id}`,
      name: `Slurm 分中心 ${c.id.toUpperCase()}`,
      status: 'online',
      scheduler: { kind: 'slurm', cluster: c.cluster, restUrl: c.restUrl, apiVersion: 'v0.0.38', jwtKeyFile: c.jwtKeyFile, account: c.account },
      storageRoot: c.storageRoot,
      accounts: { prefix: c.accounts.prefix, uidStart: c.accounts.uidStart, size: c.accounts.names.length },
      cardTypes: [
        { id: 'cpu', name: 'CPU 通用型', vendor: 'Intel', memoryGB: 0, nodes: c.nodes.length, cardsPerNode: 2, cpusPerCard: 1, memoryGBPerCard: 0.4, partition: c.partitions[0] },
      ],
    }));
    fs.writeFileSync(path.join(dir, 'centers.yaml'), YAML.stringify({ centers }));
    t = await createTestApp('sqlite', { centersFile: path.join(dir, 'centers.yaml') });
    token = (await t.app.ctx.sessions.create('u-slurm-int')).token;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: 'GET' | 'POST', url: string, payload?: object) =>
    body(await t.app.inject({ method, url: `${SLURM_BASE}${url}`, payload, headers: { token } }));

  async function run(center: string, templateId: string, params: Record<string, string | number> = {}) {
    const r = await call('POST', '/tasks', {
      name: templateId,
      type: 'template',
      templateId,
      params,
      subCenterId: center,
      cardTypeId: 'cpu',
      cardNum: 2,
      nodeNum: 1,
      workDir: '/',
      env: [],
      maxDurationMinutes: 5,
    });
    expect(r.message.code, r.message.message).toBe(0);
    const id = r.data.id as string;
    const deadline = Date.now() + 50_000;
    for (;;) {
      const { data } = await call('GET', `/tasks/${id}`);
      if (isTerminal(data.state as JobState)) {
        const log = (await call('GET', `/tasks/${id}/log?offset=0`)).data.content as string;
        const account = (await t.app.ctx.clusterAccounts.list('u-slurm-int', center))[0]?.account;
        return { task: data, log, account };
      }
      if (Date.now() > deadline) throw new Error(`${templateId} on ${center} still ${data.state}: ${data.reason}`);
      await new Promise((res) => setTimeout(res, 300));
    }
  }

  it('NumPy π, Open MPI π and the LAMMPS melt run to SUCCEEDED as the cluster account, with their real output', async () => {
    const [a, b] = clusters.map((c) => `slurm-${c.id}`);
    const [numpy, mpi, lammps] = await Promise.all([
      run(a, 'platform-numpy-pi', { samples: 1_000_000, matrix: 300 }),
      run(b, 'platform-mpi-pi', { np: 2 }),
      run(a, 'platform-lammps-melt', { np: 2, steps: 200 }),
    ]);
    for (const r of [numpy, mpi, lammps]) {
      expect(r.task.state, `${r.task.name}: ${r.task.reason}\n${r.log}`).toBe('SUCCEEDED');
      expect(r.task.jobId).toMatch(/^\d+$/);
      expect(r.account).toBeTruthy();
      expect(r.log).toContain(`user=${r.account} `);
    }
    expect(Number(/pi=(\d+\.\d+) samples=1000000/.exec(numpy.log)?.[1])).toBeCloseTo(3.14, 1);
    expect(numpy.log).toMatch(/matmul n=300 dtype=float64/);
    expect(mpi.log).toMatch(/rank 0 of 2 on /);
    expect(mpi.log).toMatch(/rank 1 of 2 on /);
    expect(Number(/pi=(\d+\.\d+) intervals=10000000 ranks=2/.exec(mpi.log)?.[1])).toBeCloseTo(Math.PI, 8);
    expect(lammps.log).toMatch(/Loop time of [\d.]+ on 2 procs for 200 steps with 500 atoms/);
    expect(lammps.log).toContain('Total wall time');
  }, 60_000);
});
