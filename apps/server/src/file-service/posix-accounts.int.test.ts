import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { KEYPAIR_BASE, type KeyPair } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../test/harness';
import { FileClient, sha256 } from '../../test/file-client';
import { ensureUser, runAs } from '../../test/posix-users';
import { freePort, listeningPort, startProcess, stopProcess } from '../../test/process';
import { prepareRace, runRace, snapshot } from '../../test/race';
import { serverEntryArgs } from '../../test/server-bundle';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const SECONDS = Number(process.env.RACE_SECONDS ?? 6);
const tsx = (file: string) => ['--import', 'tsx', path.join(repoRoot, 'apps/server/src/file-service', file)];

/**
 * A center whose cluster accounts are real Linux users (docs/adr/0004-files-as-the-user.md): the privileged
 * launcher (root) in its own process, the standalone file service as an unprivileged user, every file
 * operation in a worker running as the account. The gateway is this test process.
 */
describe('files under the user\'s own POSIX account', () => {
  let tmp: string;
  let storage: string;
  let t: TestApp;
  let launcher: ChildProcess;
  let fileService: { child: ChildProcess; port: number };
  let alice: FileClient;
  let bob: FileClient;
  let aliceHome: string;
  let bobHome: string;
  const svc = ensureUser('suanli-fsvc', 19990);
  const acct1 = ensureUser('szu0001', 20001);
  const acct2 = ensureUser('szu0002', 20002);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-posix-'));
    fs.chmodSync(tmp, 0o755);
    storage = path.join(tmp, 'storage');
    const fsPort = await freePort();
    const doc = YAML.parse(fs.readFileSync(path.join(repoRoot, 'config/centers.yaml'), 'utf8'));
    const center = doc.centers.find((c: { id: string }) => c.id === 'sz-a100');
    Object.assign(center, { storageRoot: storage, fileServiceUrl: `http://127.0.0.1:${fsPort}`, accounts: { prefix: 'szu', uidStart: 20001, size: 10 } });
    const centersFile = path.join(tmp, 'centers.yaml');
    fs.writeFileSync(centersFile, YAML.stringify(doc));

    t = await createTestApp('sqlite', { centersFile });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const gatewayUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const launcherSocket = path.join(tmp, 'launcher.sock');
    ({ child: launcher } = await startProcess(process.execPath, tsx('accounts/launcher-main.ts'), {
      cwd: repoRoot,
      env: { LAUNCHER_SOCKET: launcherSocket, CLIENT_USER: 'suanli-fsvc', STORAGE_ROOT: storage, ACCOUNT_UID_MIN: '20001', ACCOUNT_UID_MAX: '20010' },
      ready: (line) => (line.includes('listening') ? true : undefined),
    }));
    const started = await startProcess(process.execPath, await serverEntryArgs('file-service/main.ts'), {
      cwd: repoRoot,
      uid: svc.uid,
      gid: svc.gid,
      env: { CENTER_ID: 'sz-a100', CENTERS_FILE: centersFile, DATA_DIR: tmp, GATEWAY_URL: gatewayUrl, HOST: '127.0.0.1', PORT: String(fsPort), FS_LAUNCHER_SOCKET: launcherSocket, HOME: tmp },
      ready: listeningPort,
    });
    fileService = { child: started.child, port: started.info };
    const client = async (userId: string) => new FileClient(`http://127.0.0.1:${fileService.port}/api/v1`, (await t.app.ctx.sessions.create(userId)).token);
    alice = await client('u-alice');
    bob = await client('u-bob');
    aliceHome = path.join(storage, 'home', 'szu0001');
    bobHome = path.join(storage, 'home', 'szu0002');
    // The first call of each provisions its account (szu0001, then szu0002) and starts its first worker.
    expect((await alice.list('/')).code).toBe(0);
    expect((await bob.list('/')).code).toBe(0);
  }, 60_000);

  afterAll(async () => {
    if (fileService) await stopProcess(fileService.child);
    if (launcher) await stopProcess(launcher);
    await t?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('runs the file service unprivileged and its workers as the accounts', () => {
    const status = fs.readFileSync(`/proc/${fileService.child.pid}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${svc.uid}\\s+${svc.uid}\\s+${svc.uid}\\s+${svc.uid}$`, 'm'));
    expect(status).toMatch(/^CapEff:\s+0+$/m);
  });

  it('stores uploads as the user\'s cluster account, in a home only that account can enter', async () => {
    expect((await alice.upload('/in', 'a.txt', Buffer.from('由 alice 上传'))).code).toBe(0);
    const big = randomBytes(3 * 64 * 1024 + 5);
    const id = randomBytes(16).toString('hex');
    const { totalChunks } = await alice.chunks(id, '/in', 'big.bin', big, 64 * 1024);
    const merged = await alice.merge({ identifier: id, filename: "big.bin", path: "/in", totalChunks, totalSize: big.length, hash: sha256(big) });
    expect([merged.code, merged.message]).toEqual([0, "操作成功"]);
    for (const p of ['', 'in', 'in/a.txt', 'in/big.bin']) {
      const st = fs.statSync(path.join(aliceHome, p));
      expect([p, st.uid, st.gid]).toEqual([p, acct1.uid, acct1.gid]);
    }
    expect(fs.statSync(aliceHome).mode & 0o777).toBe(0o700);
    expect(sha256(Buffer.from(await (await alice.download(['/in/big.bin'])).arrayBuffer()))).toBe(sha256(big));
  });

  it('lists and discards an interrupted upload through the account\'s own worker, and only its own', async () => {
    const id = randomBytes(16).toString('hex');
    const bytes = randomBytes(3 * 64 * 1024);
    await alice.chunks(id, '/半途', '中断.bin', bytes, 64 * 1024, [1, 2]);
    const listed = await alice.json('GET', '/file/chunk/staged');
    expect(listed.data).toEqual([expect.objectContaining({ identifier: id, filename: '中断.bin', path: '/半途', totalSize: bytes.length, uploadedChunks: 2, uploadedBytes: 2 * 64 * 1024 })]);
    expect((await bob.json('GET', '/file/chunk/staged')).data).toEqual([]);
    expect((await bob.json('DELETE', '/file/chunk/staged', { identifier: id })).code).toBe(1301);
    expect((await alice.json('DELETE', '/file/chunk/staged', { identifier: id })).code).toBe(0);
    expect((await alice.json('GET', '/file/chunk/staged')).data).toEqual([]);
  });

  it('lets the account write into its own home (as its jobs will), and not into another account\'s', async () => {
    expect(runAs(acct1, 'sh', ['-c', `echo 作业输出 > '${aliceHome}/by-job.txt'`]).status).toBe(0);
    expect((await alice.list('/')).data.list.map((e: { name: string }) => e.name)).toContain('by-job.txt');
    // Another account can neither list nor read nor write there: the kernel refuses it.
    expect(runAs(acct2, 'ls', [aliceHome]).status).not.toBe(0);
    expect(runAs(acct2, 'cat', [path.join(aliceHome, 'in/a.txt')]).status).not.toBe(0);
    expect(runAs(acct2, 'sh', ['-c', `echo x > '${aliceHome}/intruder.txt'`]).status).not.toBe(0);
    expect(fs.existsSync(path.join(aliceHome, 'intruder.txt'))).toBe(false);
    // And a link bob plants to alice's home leads nowhere for him through the service either.
    fs.symlinkSync(aliceHome, path.join(bobHome, 'to-alice'));
    expect((await bob.list('/to-alice')).code).toBe(1308);
    expect((await (await bob.download(['/to-alice/in/a.txt'])).json()).message.code).toBe(1308);
  });

  it('installs key pairs through the file service: authorized_keys written as the account, its own lines kept', async () => {
    // The account already has a key of its own (written by itself, as on a real login node).
    const ssh = path.join(aliceHome, '.ssh');
    expect(runAs(acct1, 'sh', ['-c', `mkdir -p '${ssh}' && echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMine mine@laptop' > '${ssh}/authorized_keys'`]).status).toBe(0);
    const keyFile = path.join(tmp, 'alice-key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'alice', '-f', keyFile]);
    const token = (await t.app.ctx.sessions.create('u-alice')).token;
    const api = async (url: string, payload: object) => body(await t.app.inject({ method: 'POST', url: `${KEYPAIR_BASE}${url}`, headers: { token }, payload }));
    const key = (await api('/keypairs/import', { name: '笔记本', publicKey: fs.readFileSync(`${keyFile}.pub`, 'utf8') })).data as KeyPair;
    const installed = await api(`/keypairs/${key.id}/install`, { subCenterIds: ['sz-a100'] });
    expect(installed.message.code, installed.message.message).toBe(0);
    // The gateway has no say over this storage: the standalone file service wrote it, through the account's worker.
    const file = path.join(ssh, 'authorized_keys');
    const lines = () => fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines()).toEqual(['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMine mine@laptop', `${fs.readFileSync(`${keyFile}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')} suanli:${key.id}`]);
    for (const [p, mode] of [[ssh, 0o700], [file, 0o600]] as const) {
      const st = fs.statSync(p);
      expect([p, st.uid, st.gid, st.mode & 0o777]).toEqual([p, acct1.uid, acct1.gid, mode]);
    }
    // The web shell's platform key goes the same way; uninstalling takes out only our line.
    await t.app.keypairs.loginFor('u-alice', token, 'sz-a100');
    expect(lines().filter((l) => l.endsWith(' suanli:platform'))).toHaveLength(1);
    expect((await api(`/keypairs/${key.id}/uninstall`, { subCenterIds: ['sz-a100'] })).message.code).toBe(0);
    expect(lines().map((l) => l.split(' ').pop())).toEqual(['mine@laptop', 'suanli:platform']);
  });

  it(`holds the symlink race run by the account itself for ${SECONDS} s`, async () => {
    // World-writable outside, so only the service's resolution (not file modes) stands between.
    const outside = fs.mkdtempSync(path.join(tmp, 'outside-'));
    fs.chmodSync(outside, 0o777);
    prepareRace(aliceHome, outside, acct1);
    for (const f of fs.readdirSync(outside)) fs.chmodSync(path.join(outside, f), 0o666);
    const before = snapshot(outside);
    // Workers start in ~0.5 s on a quiet machine (seconds on a loaded one): have a few running before the clock starts.
    await Promise.all(Array.from({ length: 6 }, () => alice.list('/')));
    const seen = await runRace({ client: alice, home: aliceHome, seconds: SECONDS, swapAs: acct1 });
    expect(seen.leaked).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    expect(seen.swapperExit).toBe(0);
    expect(seen.swaps).toBeGreaterThan(1000);
    expect(seen.insideReads).toBeGreaterThan(0);
    for (const n of [seen.downloads, seen.listings, seen.uploads, seen.deletes]) expect(n, JSON.stringify(seen)).toBeGreaterThanOrEqual(8);
    expect(Object.keys(snapshot(aliceHome)).filter((p) => p.includes('.suanli-upload-'))).toEqual([]);
  }, 60_000);
});
