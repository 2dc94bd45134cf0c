import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { slurmAuthHeaders, type SlurmClusterInfo } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import { setAssociationLimit } from './balance-limit';
import type { SlurmCall } from './v0038';

/**
 * Issue 25, item 3: the scheduler itself enforces the balance, for jobs from any route (console, SSH, web
 * shell). Proven here on the harness with the mechanism docs/operations/slurm-center.md ("Balance limits")
 * describes: the cluster account's association gets `GrpTRES=gres/gpu=0` when its owner has no compute power
 * left for the center's cards, and `-1` (no limit) when they have some, under
 * `AccountingStorageEnforce=associations,limits,qos,safe`. A job submitted straight with `sbatch` as the
 * cluster account (as over SSH) is held with Slurm's limit reason; lifting the limit lets it start without
 * anything else touching Slurm.
 */

const { clusters } = workerSlurmHarness();
const c = clusters.find((x) => x.id === 'a')!;
// The last account of the pool: the other files' tests submit as the first ones.
const acct = c.accounts.names.at(-1)!;
const env = { ...process.env, SLURM_CONF: c.slurmConf };

function slurm(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { env, encoding: 'utf8' }).trim();
}

/** What the platform sets on the association (issue 25, item 3): 0 cards when nothing is left, else no limit. */
function setGpuLimit(cluster: SlurmClusterInfo, user: string, cards: number): void {
  slurm('sacctmgr', ['-i', 'modify', 'user', 'where', `name=${user}`, `cluster=${cluster.cluster}`, `account=${cluster.account}`, 'set', `GrpTRES=gres/gpu=${cards}`]);
}

/** slurmrestd as `user` (the platform's transport, minus timeouts and token caching). */
const rest: SlurmCall = async (user, method, url, payload) => {
  const res = await fetch(`${c.restUrl}${url}`, {
    method,
    headers: { ...slurmAuthHeaders(c, user), ...(payload ? { 'Content-Type': 'application/json' } : {}) },
    body: payload ? JSON.stringify(payload) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const grpTres = () => slurm('sacctmgr', ['-n', '-P', 'show', 'assoc', 'where', `user=${acct}`, `cluster=${c.cluster}`, 'format=GrpTRES']);

function job(jobId: string): { state: string; reason: string } {
  const out = slurm('squeue', ['-h', '-j', jobId, '-o', '%T|%r']);
  if (!out) return { state: 'GONE', reason: '' };
  const [state, reason] = out.split('|');
  return { state, reason };
}

describe('the balance enforced by Slurm on the cluster account (issue 25)', () => {
  it('sbatch as the cluster account is held with a limit reason at 0 cards, and starts once the limit is lifted', async () => {
    const home = path.join(c.storageRoot, 'home', acct);
    const sbatch = (gpus: number) =>
      execFileSync(
        'runuser',
        ['-u', acct, '--', 'sbatch', '--parsable', '-p', c.partitions[0], `--gres=${c.gres[0].name}:${c.gres[0].type}:${gpus}`, `--chdir=${home}`, '-o', '/dev/null', '--wrap', 'sleep 2'],
        { env, encoding: 'utf8' },
      )
        .trim()
        .split(';')[0];
    try {
      setGpuLimit(c, acct, 0);
      expect(grpTres()).toBe('gres/gpu=0');
      const held = sbatch(1);
      // Held, not run: PENDING with the association's gres limit as its reason, across scheduling passes.
      await expect.poll(() => job(held), { timeout: 10_000, interval: 250 }).toEqual({ state: 'PENDING', reason: 'AssocGrpGRES' });
      await new Promise((r) => setTimeout(r, 4_000));
      expect(job(held)).toEqual({ state: 'PENDING', reason: 'AssocGrpGRES' });

      // Compute power bought or granted: the platform lifts the limit, and the held job starts by itself.
      setGpuLimit(c, acct, -1);
      // (the poll's value is the job's state and reason, so a failure says where it stuck)
      await expect.poll(() => job(held), { timeout: 40_000, interval: 250 }).toSatisfy((j: { state: string }) => ['RUNNING', 'COMPLETING', 'GONE'].includes(j.state));
      await expect
        .poll(() => slurm('sacct', ['-X', '-n', '-P', '-M', c.cluster, '-j', held, '-o', 'State']), { timeout: 30_000, interval: 500 })
        .toBe('COMPLETED');
    } finally {
      setGpuLimit(c, acct, -1);
    }
  }, 90_000);

  it('the platform sets and lifts the limit through slurmrestd (dbv0.0.38 associations) as a Slurm admin', async () => {
    const limit = { cluster: c.cluster, account: c.account, user: acct, gres: c.gres[0].name };
    try {
      await setAssociationLimit(rest, 'root', { ...limit, cards: 0 });
      expect(grpTres()).toBe('gres/gpu=0');
      await setAssociationLimit(rest, 'root', { ...limit, cards: null });
      expect(grpTres()).toBe('');
      // A cluster account may not change its own association: whatever slurmrestd answers, nothing changes.
      await setAssociationLimit(rest, acct, { ...limit, cards: 0 }).catch(() => undefined);
      expect(grpTres()).toBe('');
    } finally {
      setGpuLimit(c, acct, -1);
    }
  }, 30_000);
});
