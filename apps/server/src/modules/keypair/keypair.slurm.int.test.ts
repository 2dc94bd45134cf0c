import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYPAIR_BASE, type KeyPair, type KeyPairGenerated } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { ssh } from '../../../test/ssh-login';
import { workerSlurmHarness } from '../../../test/slurm-worker';

/**
 * Issue 10, criterion 1 on the harness's login nodes (a real OpenSSH sshd per cluster, scripts/slurm/sshd.sh):
 * a key the platform generated logs in as the cluster account once installed, lands in its home, and is
 * refused after uninstall; the web shell's platform key logs in too. The client is OpenSSH's own `ssh`.
 */
const { clusters } = workerSlurmHarness();

describe('key pairs on the clusters\' login nodes', () => {
  let t: TestApp;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-keys-int-'));
    t = await createTestApp('sqlite', { centersFile: writeSlurmCentersFile({ workDir: '', clusters }, dir) });
    token = (await t.app.ctx.sessions.create('u-keys-int')).token;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `${KEYPAIR_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));

  it.each(clusters.map((c) => [c.id, c] as const))('cluster %s: a generated key logs in after install and is refused after uninstall', async (_id, c) => {
    const centerId = `slurm-${c.id}`;
    const gen = (await call('POST', '/keypairs/generate', { name: `登录 ${c.id}`, type: 'ed25519' })).data as KeyPairGenerated;
    const keyFile = path.join(dir, `key-${c.id}`);
    fs.writeFileSync(keyFile, gen.privateKey, { mode: 0o600 });

    expect(ssh({ keyFile, port: c.sshPort }, c.accounts.names[0], 'true').status).not.toBe(0);
    const inst = await call('POST', `/keypairs/${gen.keyPair.id}/install`, { subCenterIds: [centerId] });
    expect(inst.message.code, inst.message.message).toBe(0);
    const account = (inst.data as KeyPair).installs[0].account;
    expect(c.accounts.names).toContain(account);

    const who = ssh({ keyFile, port: c.sshPort }, account, 'whoami; pwd; stat -c %U:%a ~/.ssh ~/.ssh/authorized_keys');
    expect(who.status, who.err).toBe(0);
    expect(who.out.split('\n')).toEqual([account, path.join(c.storageRoot, 'home', account), `${account}:700`, `${account}:600`]);

    await call('POST', `/keypairs/${gen.keyPair.id}/uninstall`, { subCenterIds: [centerId] });
    const refused = ssh({ keyFile, port: c.sshPort }, account, 'whoami');
    expect(refused.status).not.toBe(0);
    expect(refused.err).toMatch(/Permission denied/);
  });

  it('the web shell\'s platform key logs in as the account; another user\'s key does not open this account', async () => {
    const c = clusters[0];
    const login = await t.app.keypairs.loginFor('u-keys-int', token, `slurm-${c.id}`);
    expect(login.port).toBe(c.sshPort);
    const keyFile = path.join(dir, 'platform');
    fs.writeFileSync(keyFile, String(login.privateKey), { mode: 0o600 });
    const who = ssh({ keyFile, port: c.sshPort }, login.username, 'whoami');
    expect(who.status, who.err).toBe(0);
    expect(who.out).toBe(login.username);

    const other = await t.app.keypairs.loginFor('u-keys-int-2', (await t.app.ctx.sessions.create('u-keys-int-2')).token, `slurm-${c.id}`);
    expect(other.username).not.toBe(login.username);
    const otherFile = path.join(dir, 'platform-2');
    fs.writeFileSync(otherFile, String(other.privateKey), { mode: 0o600 });
    expect(ssh({ keyFile: otherFile, port: c.sshPort }, login.username, 'whoami').status).not.toBe(0);
    expect(ssh({ keyFile: otherFile, port: c.sshPort }, other.username, 'whoami').out).toBe(other.username);
  });
});
