import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { DEVELOP_JUPYTER_COMMAND, KEYPAIR_BASE, TRAINING_BASE, type KeyPairGenerated, type TaskDetail, type TaskSsh } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { commandLines, ideRequest, probeAsOtherUser } from '../../../test/ide';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * Issue 10, criterion 3 on real Slurm: a develop task on a harness cluster runs Debian's Jupyter Notebook as
 * the cluster account, and the gateway's proxy reaches it on the node Slurm allocated (its NodeAddr) at the
 * port the job reported; stopping the task (scancel) ends it. Its owner's own key pair, installed on the
 * center, opens a shell inside the job through the login node (the detail page's SSH command).
 *
 * Issue 17, criterion 1 on a shared node: Jupyter's token is on no command line, and another cluster account
 * on the node — reading every command line as `ps` does, calling Jupyter's API on its port — is refused.
 */
const { clusters } = workerSlurmHarness();

describe('develop task on Slurm through the proxy', () => {
  let t: TestApp;
  let token: string;
  let dir: string;
  let port: number;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-ide-int-'));
    t = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, dir), clock: Date.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
    // The origin browsers use, known once listening: the IDE origin (`<task>.ide.localhost:<port>`) follows it.
    t.app.ctx.config.publicUrl = `http://127.0.0.1:${port}`;
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
    const ticketUrl = new URL((await api('POST', `/tasks/${id}/ide-ticket`)).data.url as string);
    const hop = await ideRequest(port, id, ticketUrl.pathname + ticketUrl.search);
    expect(hop.status).toBe(303);
    const cookie = String(hop.headers['set-cookie']).split(';')[0];
    await expect.poll(async () => (await ideRequest(port, id, '/api/status', { headers: { cookie } })).status, { timeout: 90_000, interval: 1000 }).toBe(200);

    // The notebook server is the account's: a file it makes through Jupyter's API lands in the account's home.
    const made = await ideRequest(port, id, '/api/contents/made-by-jupyter.txt', {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'file', format: 'text', content: '来自 Jupyter' }),
    });
    expect(made.status).toBe(201);
    const account = (await t.app.ctx.clusterAccounts.list('u-ide-int', `slurm-${c.id}`))[0].account;
    const file = path.join(c.storageRoot, 'home', account, 'made-by-jupyter.txt');
    expect(fs.readFileSync(file, 'utf8')).toBe('来自 Jupyter');
    expect(fs.statSync(file).uid).toBe(c.accounts.uidStart + c.accounts.names.indexOf(account));

    // Where it listens: the node's address as Slurm knows it (NodeAddr), as the poller stored it; the job's
    // endpoint file (0600, the account's) holds only the port and the token.
    const row = await t.app.ctx.db.selectFrom('tasks').select(['exec_host', 'log_path']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.exec_host).toBe('127.0.0.1');
    const endpoint = path.join(c.storageRoot, 'home', account, row.log_path.replace(/\.log$/, '.endpoint'));
    expect(fs.statSync(endpoint).mode & 0o777).toBe(0o600);
    const [jupyterPort, secret] = fs.readFileSync(endpoint, 'utf8').trim().split(' ');
    expect(secret).toMatch(/^[0-9a-f]{48}$/);
    expect(commandLines().filter((a) => a.includes(secret))).toEqual([]);
    // Another cluster account on the same node, with network access to the port: refused, token or not.
    const neighbour = c.accounts.names.find((n) => n !== account)!;
    const codes = probeAsOtherUser(neighbour, row.exec_host!, Number(jupyterPort));
    expect(codes.length).toBeGreaterThanOrEqual(1);
    expect(codes.every((code) => code === 403)).toBe(true);

    // SSH with the user's own key pair, installed on the center: the detail page's command logs in to the
    // login node as the account and steps into the job's allocation (its SLURM_JOB_ID, on its node).
    const kp = body<KeyPairGenerated>(await t.app.inject({ method: 'POST', url: `${KEYPAIR_BASE}/keypairs/generate`, headers: { token }, payload: { name: 'laptop', type: 'ed25519' } })).data;
    expect(body(await t.app.inject({ method: 'POST', url: `${KEYPAIR_BASE}/keypairs/${kp.keyPair.id}/install`, headers: { token }, payload: { subCenterIds: [`slurm-${c.id}`] } })).message.code).toBe(0);
    const keyFile = path.join(dir, 'laptop');
    fs.writeFileSync(keyFile, kp.privateKey, { mode: 0o600 });
    const ssh = body<TaskSsh>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}/ssh`, headers: { token } })).data;
    const task = (await api('GET', `/tasks/${id}`)).data as TaskDetail;
    expect(ssh).toMatchObject({ host: '127.0.0.1', port: c.sshPort, account, jobId: task.jobId });
    expect(ssh.command).toBe(`ssh -p ${c.sshPort} -t ${account}@127.0.0.1 srun --jobid=${task.jobId} --overlap --pty bash -l`);
    // The same command, with the key and a forced pty (stdin is not a terminal here), typed into.
    const args = ssh.command.split(' ').slice(1).map((a) => (a === '-t' ? '-tt' : a));
    const out = spawnSync('ssh', ['-i', keyFile, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', ...args], {
      input: 'echo "IN-JOB=$SLURM_JOB_ID AS=$(whoami)"; exit\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out.stdout, JSON.stringify(out.stdout) + out.stderr).toContain(`IN-JOB=${task.jobId} AS=${account}`);
    // Another user's task: not found.
    const other = (await t.app.ctx.sessions.create('u-ide-int-other')).token;
    expect(body(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}/ssh`, headers: { token: other } })).message.code).toBe(1205);

    await api('POST', `/tasks/${id}/stop`);
    await expect.poll(async () => ((await api('GET', `/tasks/${id}`)).data as TaskDetail).state, { timeout: 60_000, interval: 500 }).toBe('STOPPED');
    expect(body(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}/ssh`, headers: { token } })).message.code).toBe(2011);
    const after = await ideRequest(port, id, '/api/status', { headers: { cookie } });
    expect(after.status).toBe(503);
  });
});
