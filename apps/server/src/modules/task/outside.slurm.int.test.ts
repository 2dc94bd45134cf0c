import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SLURM_BASE, taskFolder, type TaskDetail } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { slurmAuthHeaders } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * On a real Slurm cluster of the harness (issue 22): a job without 工作目录 runs in its task's own folder, made
 * in the cluster account's home as the account; and a job cancelled outside the platform says who ended it —
 * its own account (the user's `scancel` on the login node) or someone else (root: 管理员或调度系统) — as Slurm
 * accounting recorded the requester (sacct's `CANCELLED by <uid>`, slurmrestd's kill_request_user).
 */

const { clusters } = workerSlurmHarness();

describe('task folders and cancels from outside on real Slurm', () => {
  const c = clusters[0];
  const center = `slurm-${c.id}`;
  const user = 'u-slurm-outside';
  let t: TestApp;
  let token: string;
  let dir: string;
  let account: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-slurm-outside-'));
    const centers = [
      {
        id: center,
        name: 'Slurm 分中心',
        status: 'online',
        scheduler: { kind: 'slurm', cluster: c.cluster, restUrl: c.restUrl, apiVersion: 'v0.0.38', jwtKeyFile: c.jwtKeyFile, account: c.account },
        storageRoot: c.storageRoot,
        accounts: { prefix: c.accounts.prefix, uidStart: c.accounts.uidStart, size: c.accounts.names.length },
        cardTypes: [{ id: 'cpu', name: 'CPU 通用型', vendor: 'Intel', memoryGB: 0, nodes: c.nodes.length, cardsPerNode: 2, cpusPerCard: 1, memoryGBPerCard: 0.4, partition: c.partitions[0] }],
      },
    ];
    fs.writeFileSync(path.join(dir, 'centers.yaml'), YAML.stringify({ centers }));
    t = await createTestApp('sqlite', { centersFile: path.join(dir, 'centers.yaml') });
    token = (await t.app.ctx.sessions.create(user)).token;
    account = (await t.app.ctx.clusterAccounts.ensure(user, center)).account;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => body(await t.app.inject({ method, url: `${SLURM_BASE}${url}`, payload, headers: { token } }));
  const detail = async (id: string) => (await call('GET', `/tasks/${id}`)).data as TaskDetail;
  const submit = async (name: string, script: string) => {
    const r = await call('POST', '/tasks', { name, type: 'custom', script, subCenterId: center, cardTypeId: 'cpu', cardNum: 1, nodeNum: 1, env: [], maxDurationMinutes: 5 });
    expect(r.message.code, r.message.message).toBe(0);
    return r.data as TaskDetail;
  };
  const until = (id: string, state: string, timeout = 60_000) => expect.poll(async () => (await detail(id)).state, { timeout, interval: 300 }).toBe(state);
  /** `scancel` as `as`, through slurmrestd (what the login node's scancel asks the controller). */
  const scancel = async (jobId: string, as: string) => {
    const res = await fetch(`${c.restUrl}/slurm/v0.0.38/job/${jobId}`, { method: 'DELETE', headers: slurmAuthHeaders(c, as) });
    expect(res.status, await res.text()).toBe(200);
  };

  it('a job without 工作目录 runs in /tasks/<name>-<id> of the account\'s home, its log there', async () => {
    const task = await submit('折叠 计算', '#!/bin/bash\npwd\nid -un\necho ok > result.txt\n');
    const folder = taskFolder('折叠 计算', task.id);
    expect(task.workDir).toBe(folder);
    const home = path.join(c.storageRoot, 'home', account);
    const abs = path.join(home, folder);
    expect(fs.statSync(abs).uid).toBe(fs.statSync(home).uid);
    await until(task.id, 'SUCCEEDED');
    const log = (await call('GET', `/tasks/${task.id}/log?offset=0`)).data.content as string;
    expect(log.trim().split('\n')).toEqual([fs.realpathSync(abs), account]);
    expect(fs.readFileSync(path.join(abs, 'result.txt'), 'utf8')).toBe('ok\n');
    expect(fs.existsSync(path.join(abs, `suanli-${task.id}.log`))).toBe(true);
    // None of this task's files in the home's root (other test files' tasks on the same cluster account may
    // have run there on purpose, with 工作目录 /).
    expect(fs.readdirSync(home).filter((n) => n.includes(task.id))).toEqual([]);
  }, 90_000);

  it('a job cancelled by its own account says 用户在登录节点取消; by root 被管理员或调度系统取消', async () => {
    const own = await submit('自己取消', '#!/bin/bash\nsleep 300\n');
    const admin = await submit('管理员取消', '#!/bin/bash\nsleep 300\n');
    await until(own.id, 'RUNNING');
    await until(admin.id, 'RUNNING');
    await scancel((await detail(own.id)).jobId!, account);
    await scancel((await detail(admin.id)).jobId!, 'root');
    await until(own.id, 'STOPPED');
    await until(admin.id, 'STOPPED');
    expect((await detail(own.id)).reason).toBe('用户在登录节点取消（scancel）');
    expect((await detail(admin.id)).reason).toBe('被管理员或调度系统取消');
  }, 150_000);
});
