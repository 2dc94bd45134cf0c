import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYPAIR_BASE, type KeyPair, type KeyPairGenerated } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/**
 * Key pairs through the API on both engines, checked with OpenSSH's own tools: generated private keys load in
 * `ssh-keygen -y`, fingerprints equal `ssh-keygen -lf`, installs land in the account's authorized_keys (and
 * leave the user's own lines alone). Logging in with them over real sshd: keypair.slurm.int.test.ts.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-keys-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function sshKeygen(args: string[], input?: string) {
  return execFileSync('ssh-keygen', args, { encoding: 'utf8', input }).trim();
}
/** A key made by OpenSSH itself (what a user imports). */
function opensshKey(type: string, bits?: number) {
  const file = path.join(tmp, `k-${type}-${bits ?? 0}-${Math.random().toString(36).slice(2)}`);
  sshKeygen(['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', 'me@laptop', '-f', file]);
  return { file, pub: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}
function fingerprintOf(pubLine: string) {
  const f = path.join(tmp, `fp-${Math.random().toString(36).slice(2)}.pub`);
  fs.writeFileSync(f, `${pubLine}\n`);
  return sshKeygen(['-lf', f]).split(' ')[1];
}

describe.each(engines)('key pairs api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  let homeA: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    tokenA = (await t.app.ctx.sessions.create('u-keys-a')).token;
    tokenB = (await t.app.ctx.sessions.create('u-keys-b')).token;
    const acc = await t.app.ctx.clusterAccounts.ensure('u-keys-a', 'sz-a100');
    homeA = path.join(t.dataDir, 'centers/sz-a100/home', acc.account);
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, token: string | null = tokenA) =>
    t.app.inject({ method, url: `${KEYPAIR_BASE}${url}`, payload, headers: token ? { token } : {} }).then((r) => body(r));
  const authorized = () => {
    const f = path.join(homeA, '.ssh/authorized_keys');
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
  };

  it.each([
    ['ed25519', 256],
    ['rsa', 4096],
  ] as const)('generates %s keys OpenSSH accepts, with the fingerprint ssh-keygen prints', async (type, bits) => {
    const res = await call('POST', '/keypairs/generate', { name: `我的 ${type} 密钥`, type });
    expect(res.message.code, res.message.message).toBe(0);
    const { keyPair, privateKey } = res.data as KeyPairGenerated;
    expect(privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    const file = path.join(tmp, `gen-${engine}-${type}`);
    fs.writeFileSync(file, privateKey, { mode: 0o600 });
    const derived = sshKeygen(['-y', '-f', file]).split(' ').slice(0, 2).join(' ');
    expect(keyPair.publicKey.split(' ').slice(0, 2).join(' ')).toBe(derived);
    expect(keyPair).toMatchObject({ type, bits, source: 'generated', installs: [] });
    expect(keyPair.fingerprint).toBe(fingerprintOf(keyPair.publicKey));
    // The private key is not kept: the list has no trace of it.
    expect(JSON.stringify((await call('GET', '/keypairs')).data)).not.toContain('PRIVATE');
  });

  it('imports OpenSSH public keys and refuses malformed, private, weak and duplicate ones in Chinese', async () => {
    const ed = opensshKey('ed25519');
    const ok = await call('POST', '/keypairs/import', { name: '笔记本', publicKey: ed.pub });
    expect(ok.message.code, ok.message.message).toBe(0);
    expect(ok.data).toMatchObject({ type: 'ed25519', bits: 256, source: 'imported', fingerprint: fingerprintOf(ed.pub) });
    const rsa2048 = opensshKey('rsa', 2048);
    expect((await call('POST', '/keypairs/import', { name: 'rsa2048', publicKey: rsa2048.pub })).data).toMatchObject({ type: 'rsa', bits: 2048 });
    const ecdsa = opensshKey('ecdsa', 384);
    expect((await call('POST', '/keypairs/import', { name: 'ecdsa', publicKey: ecdsa.pub })).data).toMatchObject({ type: 'ecdsa', bits: 384 });

    const refused = async (publicKey: string, code: number, text: RegExp, name = '坏钥匙') => {
      const before = ((await call('GET', '/keypairs')).data as KeyPair[]).length;
      const res = await call('POST', '/keypairs/import', { name, publicKey });
      expect(res.message.code).toBe(code);
      expect(res.message.message).toMatch(text);
      expect(((await call('GET', '/keypairs')).data as KeyPair[]).length).toBe(before);
    };
    await refused('garbage', 2201, /公钥格式不正确/);
    await refused('ssh-ed25519 !!!notbase64', 2201, /Base64/);
    await refused(ed.pub.replace(/AAAA(.{10})/, 'AAAB$1'), 2201, /公钥格式不正确/);
    await refused(fs.readFileSync(ed.file, 'utf8'), 2201, /私钥/);
    await refused(`${ed.pub}\n${rsa2048.pub}`, 2201, /一行/);
    await refused(opensshKey('rsa', 1024).pub, 2202, /至少 2048 位（当前 1024 位）/);
    await refused(ed.pub, 1206, /已添加过/, '同一把钥匙');
    await refused(opensshKey('ed25519').pub, 1005, /name/, '   ');
  });

  it('installs into the account\'s authorized_keys beside the user\'s own lines, uninstalls and deletes only ours', async () => {
    fs.mkdirSync(path.join(homeA, '.ssh'), { recursive: true });
    const own = opensshKey('ed25519').pub;
    fs.writeFileSync(path.join(homeA, '.ssh/authorized_keys'), `${own}\n`);
    const key = (await call('POST', '/keypairs/import', { name: '安装测试', publicKey: opensshKey('ed25519').pub })).data as KeyPair;

    const inst = await call('POST', `/keypairs/${key.id}/install`, { subCenterIds: ['sz-a100'] });
    expect(inst.message.code, inst.message.message).toBe(0);
    expect(inst.data.installs).toEqual([expect.objectContaining({ subCenterId: 'sz-a100', subCenterName: '深圳算力分中心', account: expect.stringMatching(/^szu/), sshCommand: expect.stringMatching(/^ssh (-p \d+ )?szu\w+@127\.0\.0\.1$/) })]);
    const base = key.publicKey.split(' ').slice(0, 2).join(' ');
    expect(authorized()).toContain(`${base} suanli:${key.id}`);
    expect(authorized()).toContain(own);
    expect(fs.statSync(path.join(homeA, '.ssh')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(homeA, '.ssh/authorized_keys')).mode & 0o777).toBe(0o600);
    // Installing again keeps one line.
    await call('POST', `/keypairs/${key.id}/install`, { subCenterIds: ['sz-a100'] });
    expect(authorized().split('\n').filter((l) => l.includes(key.id))).toHaveLength(1);

    expect((await call('POST', `/keypairs/${key.id}/uninstall`, { subCenterIds: ['sz-a100'] })).data.installs).toEqual([]);
    expect(authorized()).not.toContain(base);
    expect(authorized()).toContain(own);

    await call('POST', `/keypairs/${key.id}/install`, { subCenterIds: ['sz-a100'] });
    expect((await call('DELETE', `/keypairs/${key.id}`)).message.code).toBe(0);
    expect(authorized()).not.toContain(base);
    expect(authorized()).toContain(own);
    expect(((await call('GET', '/keypairs')).data as KeyPair[]).some((k) => k.id === key.id)).toBe(false);
    expect((await call('POST', `/keypairs/${key.id}/install`, { subCenterIds: ['nowhere'] })).message.code).toBe(1205);
  });

  it('refuses a ~/.ssh that is a link, touching nothing outside the home', async () => {
    const acc = await t.app.ctx.clusterAccounts.ensure('u-keys-b', 'gz-ascend');
    const homeB = path.join(t.dataDir, 'centers/gz-ascend/home', acc.account);
    const outside = fs.mkdtempSync(path.join(tmp, 'outside-'));
    fs.symlinkSync(outside, path.join(homeB, '.ssh'));
    const key = (await call('POST', '/keypairs/import', { name: '链接测试', publicKey: opensshKey('ed25519').pub }, tokenB)).data as KeyPair;
    const res = await call('POST', `/keypairs/${key.id}/install`, { subCenterIds: ['gz-ascend'] }, tokenB);
    expect(res.message.code).toBe(1308);
    expect(fs.readdirSync(outside)).toEqual([]);
    fs.unlinkSync(path.join(homeB, '.ssh'));
  });

  it('another user cannot see, install, uninstall or delete a key; no token is refused', async () => {
    const key = (await call('POST', '/keypairs/import', { name: 'A 的钥匙', publicKey: opensshKey('ed25519').pub })).data as KeyPair;
    await call('POST', `/keypairs/${key.id}/install`, { subCenterIds: ['sz-a100'] });
    const listB = JSON.stringify((await call('GET', '/keypairs', undefined, tokenB)).data);
    expect(listB).not.toContain(key.id);
    expect(listB).not.toContain(key.fingerprint);
    for (const [method, url, payload] of [
      ['POST', `/keypairs/${key.id}/install`, { subCenterIds: ['gz-ascend'] }],
      ['POST', `/keypairs/${key.id}/uninstall`, { subCenterIds: ['sz-a100'] }],
      ['DELETE', `/keypairs/${key.id}`, undefined],
    ] as const) {
      const res = await call(method, url, payload, tokenB);
      expect(res.message.code).toBe(1205);
      expect(JSON.stringify(res)).not.toContain(key.fingerprint);
    }
    expect(authorized()).toContain(`suanli:${key.id}`);
    expect((await call('GET', '/keypairs')).data.find((k: KeyPair) => k.id === key.id).installs).toHaveLength(1);
    expect((await call('GET', '/keypairs', undefined, null)).message.code).toBe(10133);
    expect((await call('POST', '/keypairs/generate', { name: 'x', type: 'dsa' })).message.code).toBe(1005);
  });

  it('the platform key of the web shell is made once, kept encrypted and installed for the account', async () => {
    const first = await t.app.keypairs.loginFor('u-keys-a', tokenA, 'sz-a100');
    const again = await t.app.keypairs.loginFor('u-keys-a', tokenA, 'sz-a100');
    expect(again.privateKey).toBe(first.privateKey);
    expect(first).toMatchObject({ host: '127.0.0.1', port: 22, username: expect.stringMatching(/^szu/) });
    const file = path.join(tmp, `platform-${engine}`);
    fs.writeFileSync(file, String(first.privateKey), { mode: 0o600 });
    const pub = sshKeygen(['-y', '-f', file]).split(' ').slice(0, 2).join(' ');
    expect(authorized()).toContain(`${pub} suanli:platform`);
    // Stored sealed: the database row does not hold the key in clear.
    const row = await t.app.ctx.db.selectFrom('platform_keys').selectAll().where('user_id', '=', 'u-keys-a').executeTakeFirstOrThrow();
    expect(row.private_key_enc).not.toContain('PRIVATE KEY');
    // Another user gets their own key, never a shared one.
    const other = await t.app.keypairs.loginFor('u-keys-b', tokenB, 'sz-a100');
    expect(other.privateKey).not.toBe(first.privateKey);
  });
});
