import { execSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESHELL_BASE, SHELL_CLOSE_REFUSED, SHELL_TEXT, type AccessSessionPage, type ShellCenterList } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { openShell, shellUrl, type ShellClient } from '../../../test/shell-client';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * Issue 10, criterion 2 over SSH: the web shell socket → ssh2 → the harness's login-node sshd of each Slurm
 * cluster (scripts/slurm/sshd.sh), as the user's cluster account with the per-user platform key the key
 * pairs module holds and installs. whoami = the cluster account, pwd = its home, `stty size` follows resize.
 */
const { clusters } = workerSlurmHarness();

/** The login node's host key fingerprint, as an operator would put it in centers.yaml (`loginHostKey`). */
function hostKeyOf(port: number): string {
  const out = execSync(`ssh-keyscan -t ed25519 -p ${port} 127.0.0.1 2>/dev/null | ssh-keygen -lf -`, { encoding: 'utf8' });
  return out.split(' ')[1];
}

describe('web shell over SSH to the clusters\' login nodes', () => {
  let t: TestApp;
  let port: number;
  let dir: string;
  const open: ShellClient[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-eshell-int-'));
    // Host keys pinned: the connections below also prove the pin matches what the login nodes show.
    const centersFile = writeSlurmCentersFile({ workDir: '', clusters }, dir, (c) => ({ loginHostKey: hostKeyOf(c.sshPort) }));
    t = await createTestApp('sqlite', { centersFile });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of open.splice(0)) s.ws.terminate();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const shell = async (token: string, q: Record<string, string | number | undefined>) => {
    const s = await openShell(shellUrl(port, { token, ...q }));
    open.push(s);
    return s;
  };
  const size = async (s: ShellClient) => {
    const from = s.output().length;
    s.type("echo SZ:$(stty size):E''ND");
    return (await s.waitOutput(/SZ:(\d+ \d+):END/, 20_000, from))[1];
  };

  it('offers SSH on every Slurm center', async () => {
    const { token } = await t.app.ctx.sessions.create('u-sh-int-list');
    const list = body<ShellCenterList>(await t.app.inject({ method: 'GET', url: `${ESHELL_BASE}/centers`, headers: { token } })).data;
    expect(list.map((c) => c.transport)).toEqual(clusters.map(() => 'ssh'));
  });

  it.each(clusters.map((c) => [c.id, c] as const))('cluster %s: whoami is the cluster account, pwd its home, stty size follows resize; recorded', async (_id, c) => {
    const userId = `u-sh-int-${c.id}`;
    const { token } = await t.app.ctx.sessions.create(userId);
    const s = await shell(token, { centerId: `slurm-${c.id}`, cols: 100, rows: 30 });
    const connected = await s.waitStatus((f) => f.state === 'connected' || f.state === 'closed', 30_000);
    expect(connected.state, connected.text).toBe('connected');
    const account = /（账号 (\w+)）/.exec(connected.text)![1];
    expect(c.accounts.names).toContain(account);
    expect(connected.text).toBe(`已连接到 ${c.id === 'a' ? '测试集群甲' : '测试集群乙'} 登录节点（账号 ${account}）`);

    s.type("echo W:$(whoami):E''ND; echo P:$(pwd):E''ND");
    expect((await s.waitOutput(/W:(\S+):END/, 20_000))[1]).toBe(account);
    expect((await s.waitOutput(/P:(\S+):END/, 20_000))[1]).toBe(path.join(c.storageRoot, 'home', account));

    expect(await size(s)).toBe('30 100');
    s.send({ type: 'resize', cols: 132, rows: 43 });
    let now = '';
    for (let i = 0; i < 40 && now !== '43 132'; i++) now = await size(s);
    expect(now).toBe('43 132');

    s.type('exit');
    expect(await s.closed).toEqual({ code: 1000, reason: 'exited' });
    expect(s.statuses.at(-1)?.text).toBe(SHELL_TEXT.exited);
    const rec = body<AccessSessionPage>(await t.app.inject({ method: 'POST', url: `${ESHELL_BASE}/session/page`, headers: { token }, payload: {} })).data;
    expect(rec.list[0]).toMatchObject({ kind: 'shell', centerId: `slurm-${c.id}`, account, target: 'ssh' });
  });

  it('refuses a login node whose host key is not the pinned one (2252)', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-eshell-int-pin-'));
    const wrong = 'SHA256:' + 'A'.repeat(43);
    const t2 = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, other, () => ({ loginHostKey: wrong })) });
    try {
      await t2.app.listen({ host: '127.0.0.1', port: 0 });
      const p2 = (t2.app.server.address() as AddressInfo).port;
      const { token } = await t2.app.ctx.sessions.create('u-sh-int-pin');
      const s = await openShell(shellUrl(p2, { token, centerId: `slurm-${clusters[0].id}` }));
      expect(await s.closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '2252' });
      expect(s.statuses.at(-1)?.text).toMatch(/^无法连接登录节点/);
    } finally {
      await t2.close();
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('opens in a folder of the home; .. is refused before any connection', async () => {
    const c = clusters[0];
    const userId = 'u-sh-int-cwd';
    const { token } = await t.app.ctx.sessions.create(userId);
    const acc = await t.app.ctx.clusterAccounts.ensure(userId, `slurm-${c.id}`);
    fs.mkdirSync(path.join(acc.homeDir, 'work dir'), { recursive: true });
    const s = await shell(token, { centerId: `slurm-${c.id}`, cwd: '/work dir' });
    s.type("echo P:$(pwd):E''ND");
    expect((await s.waitOutput(/P:(.+?):END/, 30_000))[1]).toBe(path.join(c.storageRoot, 'home', acc.account, 'work dir'));
    expect(await (await shell(token, { centerId: `slurm-${c.id}`, cwd: '/../..' })).closed).toEqual({ code: SHELL_CLOSE_REFUSED, reason: '1308' });
  });
});
