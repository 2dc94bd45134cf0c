import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_BASE, teamSpace, type Team, type TeamInvitation } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../test/harness';
import { FileClient, sha256 } from '../../test/file-client';
import { registerAndLogin } from '../../test/users';

/** Does `sh -c script` succeed as the uid (the api tier's accounts have no passwd entries). */
const runsAs = (uid: number, script: string) => spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'sh', '-c', script]).status === 0;

type U = { token: string; id: string; username: string };

/**
 * 文件管理's 团队空间 (ADR 0018 "The team folder in 文件管理") through the embedded file service on both
 * engines: with `x-file-space: team:<id>` a member browses, uploads (small and chunked), downloads (also by
 * ticket), renames and deletes in `<storageRoot>/teams/<id>`, and what one member made the others' accounts
 * may write; a stranger and a leaver get 1205 in Chinese at once (a ticket issued before leaving too); a link
 * planted in the folder is refused (1308), never followed; a missing folder is 1302 and is not created.
 */
describe.each(engines)('team space in 文件管理 (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  let owner: U;
  let member: U;
  let stranger: U;
  let teamId: string;
  let dir: string;
  let outside: string;
  const uids = new Map<string, number>();

  const team = async <T = unknown>(u: U, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    body<T>(await t.app.inject({ method, url: `${TEAM_BASE}${url}`, headers: { token: u.token }, payload }));
  const files = (u: U, space?: string) => new FileClient(`${origin}/file-service/sz-a100/api/v1`, u.token, space);
  const inTeam = (u: U) => files(u, teamSpace(teamId));
  const join = async (who: U, id: string, by: U) => {
    const inv = await team<TeamInvitation>(by, 'POST', `/teams/${id}/invitations`, { username: who.username });
    expect(inv.message.code, inv.message.message).toBe(0);
    expect((await team(who, 'POST', `/invitations/${inv.data.id}/accept`)).message.code).toBe(0);
  };
  const names = async (c: FileClient, p = '/') => ((await c.list(p)).data?.list ?? []).map((e: { name: string }) => e.name).sort();

  beforeAll(async () => {
    t = await createTestApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const reg = async (): Promise<U> => {
      const r = await registerAndLogin(t.app);
      return { token: r.token, id: r.user.id, username: r.user.username };
    };
    [owner, member, stranger] = [await reg(), await reg(), await reg()];
    // The accounts reach the storage root on a center (what ADR 0018 decides is below it).
    fs.chmodSync(t.dataDir, 0o711);
    for (const u of [owner, member, stranger]) uids.set(u.id, (await t.app.ctx.clusterAccounts.ensure(u.id, 'sz-a100')).uid);
    teamId = (await team<Team>(owner, 'POST', '/teams', { name: '文件组' })).data.id;
    await join(member, teamId, owner);
    dir = path.join(t.dataDir, 'centers/sz-a100/teams', teamId);
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-team-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('lets a member upload, list, download, rename and delete in the team folder, and the other member see it', async () => {
    const m = inTeam(member);
    expect((await m.list('/')).code).toBe(0);
    expect((await m.mkdir('/', '数据')).code).toBe(0);
    const up = await m.upload('/数据', 'a.txt', Buffer.from('成员上传'));
    expect([up.code, up.message]).toEqual([0, '操作成功']);
    // Chunked, with the merge verifying the content.
    const big = randomBytes(3 * 64 * 1024 + 7);
    const id = randomBytes(16).toString('hex');
    const { totalChunks } = await m.chunks(id, '/数据', 'big.bin', big, 64 * 1024);
    const merged = await m.merge({ identifier: id, filename: 'big.bin', path: '/数据', totalChunks, totalSize: big.length, hash: sha256(big) });
    expect([merged.code, merged.message]).toEqual([0, '操作成功']);
    // On disk in the team's folder, never in the member's home.
    expect(fs.readFileSync(path.join(dir, '数据/a.txt'), 'utf8')).toBe('成员上传');
    expect(sha256(fs.readFileSync(path.join(dir, '数据/big.bin')))).toBe(sha256(big));
    expect(await names(files(member))).not.toContain('数据');

    // The owner sees and downloads it in the same space.
    const o = inTeam(owner);
    expect(await names(o, '/数据')).toEqual(['a.txt', 'big.bin']);
    expect(await (await o.download(['/数据/a.txt'])).text()).toBe('成员上传');
    const ticket = await o.downloadTicket(['/数据/big.bin']);
    expect(ticket.code).toBe(0);
    expect(sha256(Buffer.from(await (await o.fetchTicket(ticket.data.url)).arrayBuffer()))).toBe(sha256(big));

    // What one member made, the other member's account may write (folders 0777, files 0666 under the ACL).
    expect(runsAs(uids.get(owner.id)!, `echo more >> "${dir}/数据/a.txt" && echo x > "${dir}/数据/new.txt" && echo y >> "${dir}/数据/big.bin"`)).toBe(true);
    expect(runsAs(uids.get(stranger.id)!, `cat "${dir}/数据/a.txt"`)).toBe(false);

    expect((await o.rename('/数据/a.txt', 'b.txt')).code).toBe(0);
    expect((await o.remove(['/数据/new.txt'])).code).toBe(0);
    expect(await names(m, '/数据')).toEqual(['b.txt', 'big.bin']);
    const usage = await m.json('GET', '/usage');
    expect(usage.code).toBe(0);
    expect(usage.data.used).toBeGreaterThan(big.length);
  });

  it('records the space of an interrupted upload, so 继续 resumes it into the team\'s folder', async () => {
    const m = inTeam(member);
    const bytes = randomBytes(2 * 64 * 1024);
    const id = randomBytes(16).toString('hex');
    await m.chunks(id, '/数据', 'half.bin', bytes, 64 * 1024, [1]);
    // The panel lists the account's staging without a space header: the item says where it was going.
    const listed = await files(member).json('GET', '/file/chunk/staged');
    expect(listed.data).toEqual([expect.objectContaining({ identifier: id, filename: 'half.bin', path: '/数据', space: teamSpace(teamId), uploadedChunks: 1 })]);
    await m.chunks(id, '/数据', 'half.bin', bytes, 64 * 1024, [2]);
    const merged = await m.merge({ identifier: id, filename: 'half.bin', path: '/数据', totalChunks: 2, totalSize: bytes.length, hash: sha256(bytes) });
    expect(merged.code, merged.message).toBe(0);
    expect(sha256(fs.readFileSync(path.join(dir, '数据/half.bin')))).toBe(sha256(bytes));
    // Every member writes it (set 0666 before it left the private staging).
    expect(runsAs(uids.get(owner.id)!, `echo x >> "${dir}/数据/half.bin"`)).toBe(true);
    expect((await m.remove(['/数据/half.bin'])).code).toBe(0);
  });

  it('refuses a stranger with 1205 in Chinese, on every call, and a malformed space with 1005', async () => {
    const s = inTeam(stranger);
    for (const r of [await s.list('/'), await s.upload('/', 'x.txt', Buffer.from('x')), await s.downloadTicket(['/数据/b.txt']), await s.json('GET', '/usage')]) {
      expect([r.code, r.message]).toEqual([1205, '团队空间不存在或您已不是该团队的成员']);
    }
    expect((await (await s.download(['/数据/b.txt'])).json()).message.code).toBe(1205);
    expect(fs.existsSync(path.join(dir, 'x.txt'))).toBe(false);
    expect((await files(stranger, 'team:../x').list('/')).code).toBe(1005);
    expect((await files(stranger, 'home').list('/')).code).toBe(1005);
    // A team that does not exist reads the same as one the caller is not in.
    expect((await files(stranger, teamSpace('nope')).list('/')).code).toBe(1205);
  });

  it('refuses a link planted in the team folder: never followed, the outside untouched', async () => {
    fs.symlinkSync(outside, path.join(dir, 'escape'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'secret.txt'));
    const m = inTeam(member);
    expect((await m.list('/escape')).code).toBe(1308);
    expect((await m.upload('/escape', 'x.txt', Buffer.from('x'))).code).toBe(1308);
    expect((await m.mkdir('/escape', 'd')).code).toBe(1308);
    expect((await (await m.download(['/escape/secret.txt'])).json()).message.code).toBe(1308);
    expect((await (await m.download(['/secret.txt'])).json()).message.code).toBe(1308);
    expect((await m.rename('/escape/secret.txt', 'y.txt')).code).toBe(1308);
    // Deleting the link removes the link itself, never what it points to.
    expect((await m.remove(['/escape'])).code).toBe(0);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('refuses a member who left at once, a download ticket issued before leaving too', async () => {
    const m = inTeam(member);
    const ticket = await m.downloadTicket(['/数据/b.txt']);
    expect(ticket.code).toBe(0);
    expect((await team(member, 'POST', `/teams/${teamId}/leave`)).message.code).toBe(0);
    expect((await m.list('/')).code).toBe(1205);
    expect((await m.upload('/', 'late.txt', Buffer.from('x'))).code).toBe(1205);
    expect((await (await m.fetchTicket(ticket.data.url)).json()).message.code).toBe(1205);
    // Their own space is still theirs; the owner still works in the team's.
    expect((await files(member).list('/')).code).toBe(0);
    expect(await names(inTeam(owner), '/数据')).toEqual(['b.txt', 'big.bin']);
  });

  it('answers 1302 for a team folder that is missing, and never creates it', async () => {
    const other = (await team<Team>(owner, 'POST', '/teams', { name: '空组' })).data.id;
    const otherDir = path.join(t.dataDir, 'centers/sz-a100/teams', other);
    fs.rmSync(otherDir, { recursive: true });
    const o = files(owner, teamSpace(other));
    expect((await o.list('/')).code).toBe(1302);
    expect((await o.upload('/', 'x.txt', Buffer.from('x'))).code).toBe(1302);
    expect((await o.mkdir('/', 'd')).code).toBe(1302);
    expect(fs.existsSync(otherDir)).toBe(false);
  });
});
