import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEVELOP_JUPYTER_COMMAND, IDE_PROXY_BASE, TRAINING_BASE, type TaskDetail } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';

/**
 * Issue 10, criterion 3 on real Slurm: a develop task on a harness cluster runs Debian's Jupyter Notebook as
 * the cluster account (the job's endpoint file names the node and port), and the gateway's proxy reaches it;
 * stopping the task (scancel) ends it.
 */
const { clusters } = inject('slurm');

describe('develop task on Slurm through the proxy', () => {
  let t: TestApp;
  let token: string;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-ide-int-'));
    t = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, dir), clock: Date.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    token = (await t.app.ctx.sessions.create('u-ide-int')).token;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));

  it('Jupyter runs as the cluster account and answers through the proxy until the task stops', async () => {
    const c = clusters[0];
    const created = await api('POST', '/tasks', {
      name: 'Slurm 上的 Jupyter',
      type: 'develop',
      subCenterId: `slurm-${c.id}`,
      cardTypeId: 'a100-80g',
      cardNum: 1,
      nodeNum: 1,
      imageId: 'pytorch-2.3-cuda12',
      command: DEVELOP_JUPYTER_COMMAND,
      workDir: '/',
      env: [],
      maxDurationMinutes: 10,
    });
    expect(created.message.code, created.message.message).toBe(0);
    const id = created.data.id as string;
    await expect.poll(async () => ((await api('GET', `/tasks/${id}`)).data as TaskDetail).state, { timeout: 60_000, interval: 500 }).toBe('RUNNING');
    await expect.poll(async () => (await api('POST', `/tasks/${id}/ide-ticket`)).message.code, { timeout: 60_000, interval: 500 }).toBe(0);
    const hop = await fetch(base + (await api('POST', `/tasks/${id}/ide-ticket`)).data.url, { redirect: 'manual' });
    expect(hop.status).toBe(303);
    const cookie = String(hop.headers.get('set-cookie')).split(';')[0];
    const root = `${base}${IDE_PROXY_BASE}/${id}/`;
    await expect.poll(async () => (await fetch(`${root}api/status`, { headers: { cookie } })).status, { timeout: 90_000, interval: 1000 }).toBe(200);

    // The notebook server is the account's: a file it makes through Jupyter's API lands in the account's home.
    const made = await fetch(`${root}api/contents/made-by-jupyter.txt`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'file', format: 'text', content: '来自 Jupyter' }),
    });
    expect(made.status).toBe(201);
    const account = (await t.app.ctx.clusterAccounts.list('u-ide-int', `slurm-${c.id}`))[0].account;
    const file = path.join(c.storageRoot, 'home', account, 'made-by-jupyter.txt');
    expect(fs.readFileSync(file, 'utf8')).toBe('来自 Jupyter');
    expect(fs.statSync(file).uid).toBe(c.accounts.uidStart + c.accounts.names.indexOf(account));

    await api('POST', `/tasks/${id}/stop`);
    await expect.poll(async () => ((await api('GET', `/tasks/${id}`)).data as TaskDetail).state, { timeout: 60_000, interval: 500 }).toBe('STOPPED');
    const after = await fetch(`${root}api/status`, { headers: { cookie } });
    expect(after.status).toBe(503);
  });
});
