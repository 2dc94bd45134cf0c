import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { TEAM_BASE, teamSpace, type Team, type TeamInvitation } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../test/harness';
import { FileClient, sha256 } from '../../test/file-client';
import { ensureUser, runAs } from '../../test/posix-users';
import { freePort, listeningPort, startProcess, stopProcess } from '../../test/process';
import { serverEntryArgs } from '../../test/server-bundle';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const tsx = (file: string) => ['--import', 'tsx', path.join(repoRoot, 'apps/server/src/file-service', file)];

type U = { id: string; username: string; token: string };

/**
 * 文件管理's 团队空间 where cluster accounts are real Linux users (ADR 0004, ADR 0018): the standalone file
 * service (unprivileged) asks the gateway's team agent route who may use `team:<id>`, and every operation runs
 * in a worker started by the launcher as the member's own account with `teams/<id>` as its root — so the
 * folder's ACL decides. Files a member uploads belong to that member's account and the other member's
 * account writes them; a stranger is refused by the gateway; a leaver by the kernel at once (the identity's
 * cache notwithstanding) and by the gateway for any session it has not cached.
 */
describe('team space under the members\' own POSIX accounts', () => {
  let tmp: string;
  let storage: string;
  let t: TestApp;
  let launcher: ChildProcess;
  let fileService: { child: ChildProcess; port: number };
  let owner: U;
  let member: U;
  let stranger: U;
  let teamId: string;
  let dir: string;
  const svc = ensureUser('suanli-fsvc', 19990);
  const acct = [ensureUser('szu0001', 20001), ensureUser('szu0002', 20002), ensureUser('szu0003', 20003)];

  const team = async <T = any>(u: U, method: 'GET' | 'POST', url: string, payload?: object) =>
    body<T>(await t.app.inject({ method, url: `${TEAM_BASE}${url}`, headers: { token: u.token }, payload }));
  const files = (u: U, space?: string) => new FileClient(`http://127.0.0.1:${fileService.port}/api/v1`, u.token, space);
  const inTeam = (u: U) => files(u, teamSpace(teamId));

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-team-posix-'));
    fs.chmodSync(tmp, 0o755);
    storage = path.join(tmp, 'storage');
    // The file service's user owns `teams/` (docs/operations: as it owns `.assets/`), passable by all.
    fs.mkdirSync(path.join(storage, 'teams'), { recursive: true });
    fs.chmodSync(storage, 0o755);
    fs.chownSync(path.join(storage, 'teams'), svc.uid, svc.gid);
    fs.chmodSync(path.join(storage, 'teams'), 0o711);
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
      env: { CENTER_ID: 'sz-a100', CENTERS_FILE: centersFile, DATA_DIR: tmp, GATEWAY_URL: gatewayUrl, HOST: '127.0.0.1', PORT: String(fsPort), FS_LAUNCHER_SOCKET: launcherSocket, HOME: tmp, IDENTITY_CACHE_MS: '60000' },
      ready: listeningPort,
    });
    fileService = { child: started.child, port: started.info };

    const reg = async (tag: string): Promise<U> => {
      const username = `tsp_${tag}_${randomBytes(2).toString('hex')}`;
      const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
      return { id: created!.id, username, token: (await t.app.ctx.sessions.create(created!.id)).token };
    };
    owner = await reg('own');
    member = await reg('mem');
    stranger = await reg('str');
    // Each one's account on the center (szu0001…3 in this order) and home, through the file service.
    for (const u of [owner, member, stranger]) expect((await files(u).list('/')).code).toBe(0);
    teamId = (await team<Team>(owner, 'POST', '/teams', { name: '真账号组' })).data.id;
    const inv = await team<TeamInvitation>(owner, 'POST', `/teams/${teamId}/invitations`, { username: member.username });
    expect((await team(member, 'POST', `/invitations/${inv.data.id}/accept`)).message.code).toBe(0);
    dir = path.join(storage, 'teams', teamId);
  }, 90_000);

  afterAll(async () => {
    if (fileService) await stopProcess(fileService.child);
    if (launcher) await stopProcess(launcher);
    await t?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('writes as the member\'s own account; the other member\'s account reads, writes beneath and renames it', async () => {
    const m = inTeam(member);
    expect((await m.mkdir('/', '输入')).code).toBe(0);
    expect((await m.upload('/输入', 'a.txt', Buffer.from('成员的文件'))).code).toBe(0);
    const big = randomBytes(2 * 64 * 1024 + 3);
    const id = randomBytes(16).toString('hex');
    const { totalChunks } = await m.chunks(id, '/输入', 'big.bin', big, 64 * 1024);
    const merged = await m.merge({ identifier: id, filename: 'big.bin', path: '/输入', totalChunks, totalSize: big.length, hash: sha256(big) });
    expect([merged.code, merged.message]).toEqual([0, '操作成功']);
    for (const p of ['输入', '输入/a.txt', '输入/big.bin']) expect([p, fs.statSync(path.join(dir, p)).uid]).toEqual([p, acct[1].uid]);

    // The owner, through their own account's worker: reads it, writes into the member's folder, renames.
    const o = inTeam(owner);
    expect(await (await o.download(['/输入/a.txt'])).text()).toBe('成员的文件');
    expect(sha256(Buffer.from(await (await o.download(['/输入/big.bin'])).arrayBuffer()))).toBe(sha256(big));
    expect((await o.upload('/输入', 'b.txt', Buffer.from('所有者的文件'))).code).toBe(0);
    expect(fs.statSync(path.join(dir, '输入/b.txt')).uid).toBe(acct[0].uid);
    expect((await o.rename('/输入/big.bin', 'big2.bin')).code).toBe(0);
    // And their jobs (plain shells as the accounts) the same, whatever the umask.
    expect(runAs(acct[0], 'sh', ['-c', `umask 077; echo x >> '${dir}/输入/a.txt'`]).status).toBe(0);
    expect(runAs(acct[1], 'sh', ['-c', `echo y >> '${dir}/输入/b.txt'`]).status).toBe(0);
    expect(runAs(acct[2], 'cat', [path.join(dir, '输入/a.txt')]).status).not.toBe(0);
    expect((await m.remove(['/输入/b.txt'])).code).toBe(0);
    expect(((await m.list('/输入')).data.list as { name: string }[]).map((e) => e.name).sort()).toEqual(['a.txt', 'big2.bin']);

    // A folder one member's job keeps to itself does not break the others' usage and uploads (left uncounted).
    expect(runAs(acct[0], 'sh', ['-c', `mkdir -m 700 '${dir}/私有' && head -c 5000 /dev/zero > '${dir}/私有/z'`]).status).toBe(0);
    const usage = await m.json('GET', '/usage');
    expect(usage.code, usage.message).toBe(0);
    expect((await m.upload('/', 'after.txt', Buffer.from('ok'))).code).toBe(0);
    expect((await m.list('/私有')).code).toBe(1020);
  });

  it('refuses a stranger through the gateway (1205), and a link a member planted (1308)', async () => {
    const s = inTeam(stranger);
    for (const r of [await s.list('/'), await s.upload('/', 'x.txt', Buffer.from('x'))]) expect([r.code, r.message]).toEqual([1205, '团队空间不存在或您已不是该团队的成员']);
    expect(runAs(acct[1], 'ln', ['-s', '/etc', path.join(dir, 'etc')]).status).toBe(0);
    expect((await inTeam(member).list('/etc')).code).toBe(1308);
    expect((await (await inTeam(owner).download(['/etc/passwd'])).json()).message.code).toBe(1308);
  });

  it('refuses a leaver at once — the kernel, while the identity\'s cache still holds them — then the gateway', async () => {
    const m = inTeam(member);
    // Primes the file service's cached answer for this token and team (reused for IDENTITY_CACHE_MS, a minute
    // here, so a slow leave on a loaded machine still meets the cache and the kernel is what refuses).
    expect((await m.list('/')).code).toBe(0);
    expect((await team(member, 'POST', `/teams/${teamId}/leave`)).message.code).toBe(0);
    const soon = await m.upload('/', 'late.txt', Buffer.from('x'));
    expect([soon.code, soon.message]).toEqual([1020, '没有权限访问：/late.txt']);
    expect(fs.existsSync(path.join(dir, 'late.txt'))).toBe(false);
    // A session the cache has not seen is asked of the gateway: no longer a member (the 4 s default cache
    // ends the same way for the old session; identity.test.ts covers its expiry).
    const fresh = inTeam({ ...member, token: (await t.app.ctx.sessions.create(member.id)).token });
    expect([(await fresh.list('/')).code, (await fresh.upload('/', 'late.txt', Buffer.from('x'))).code]).toEqual([1205, 1205]);
    // Their home is still theirs; the owner still works in the team's folder.
    expect((await files(member).list('/')).code).toBe(0);
    expect((await inTeam(owner).list('/输入')).code).toBe(0);
  });
});
