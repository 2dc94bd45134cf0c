import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, IMAGE_BASE, TRAINING_BASE, type ImageImport, type ImageItem, type ImagePublication } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { buildOciImage, ociArchive } from '../../../test/oci-image';
import { freePort } from '../../../test/process';
import { startRegistry } from '../../../test/registry';
import { registerAndLogin } from '../../../test/users';

type Who = { token: string; id: string; username: string; ns: string };

/**
 * 审核 of public images (issue 20) with a real docker-registry on both engines: an owner asks for a tag to be
 * public; operators only see and decide (1020 for users, nothing changes); a rejection needs its reason; an
 * approval copies exactly the digest asked for to `public/<namespace>/<repository>:<tag>` — read back from
 * the registry with another user's own pull token — and the image joins everyone's public images in the task
 * form; each decision is one `image.review` audit entry and a message to the requester.
 */
describe.each(engines)('public image review (%s)', (engine) => {
  let t: TestApp;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-image-review-'));
  let a: Who;
  let b: Who;
  let op: Who;
  let digest: string;

  beforeAll(async () => {
    const port = await freePort();
    const settings = { url: `http://127.0.0.1:${port}`, address: `127.0.0.1:${port}`, service: 'suanli-registry', issuer: 'suanli-gateway' };
    t = await createTestApp(engine, { registry: settings });
    registry = await startRegistry({ port, gatewayUrl: 'http://127.0.0.1:9', certFile: t.app.images.tokenCertFile!, service: settings.service, issuer: settings.issuer });
    const who = async () => {
      const u = await registerAndLogin(t.app);
      return { token: u.token, id: u.user.id, username: u.user.username, ns: u.user.username.toLowerCase() };
    };
    [a, b, op] = [await who(), await who(), await who()];
    await t.app.ctx.access.grant(op.id, 'operator');
    // A's image through the import, as a user brings one.
    const img = buildOciImage(path.join(tmp, 'app'), 'v1', { 'f.txt': 'app:v1\n' });
    ociArchive(img, path.join(tmp, 'app.tar'));
    const home = (await t.app.ctx.clusterAccounts.ensure(a.id, 'sz-a100')).homeDir;
    fs.mkdirSync(path.join(home, 'img'), { recursive: true });
    fs.copyFileSync(path.join(tmp, 'app.tar'), path.join(home, 'img', 'app.tar'));
    const started = await call<ImageImport>(a, 'POST', '/imports', { subCenterId: 'sz-a100', path: '/img/app.tar', repository: 'app', tag: 'v1' });
    expect(started.message.code, started.message.message).toBe(0);
    await t.app.images.service.idle();
    expect((await call<ImageImport>(a, 'GET', `/imports/${started.data.id}`)).data.state).toBe('succeeded');
    digest = img.manifestDigest;
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await registry?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const call = <T = any>(who: Who | null, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${IMAGE_BASE}${url}`, payload, headers: who ? { token: who.token } : {} }).then((r) => body<T>(r));
  const entries = async (id: string) =>
    body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/audit-logs/action/page`, headers: { token: op.token }, payload: { target: id } })).data.list.reverse() as {
      action: string;
      actorName: string;
      targetType: string;
      targetName: string;
      before: string;
      after: string;
      reason: string;
    }[];
  const told = (id: string) => t.app.ctx.db.selectFrom('messages').select(['title', 'content']).where('user_id', '=', a.id).where('business_id', '=', id).execute();
  const picker = async (who: Who) => (await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/images`, headers: { token: who.token } }).then((r) => body(r))).data as ImageItem[];
  const mine = async () => (await call<ImagePublication[]>(a, 'GET', '/publications')).data;

  it('asks for the owner\'s own existing tag only, one pending request at a time', async () => {
    expect((await call(b, 'POST', '/publications', { name: `${a.ns}/app`, tag: 'v1' })).message.code).toBe(2403);
    expect((await call(a, 'POST', '/publications', { name: `${a.ns}/app`, tag: 'nope' })).message.code).toBe(2403);
    expect((await call(a, 'POST', '/publications', { name: `${a.ns}/app` })).message.code).toBe(1005);
    expect((await call(null, 'POST', '/publications', { name: `${a.ns}/app`, tag: 'v1' })).message.code).toBe(10133);
    const r = await call<ImagePublication>(a, 'POST', '/publications', { name: `${a.ns}/app`, tag: 'v1' });
    expect(r.data).toMatchObject({ source: `${a.ns}/app:v1`, digest, target: `public/${a.ns}/app:v1`, state: 'pending', reason: '', ownerName: a.username, reviewTime: null });
    expect((await call(a, 'POST', '/publications', { name: `${a.ns}/app`, tag: 'v1' })).message.code).toBe(2405);
    expect((await call<ImagePublication[]>(b, 'GET', '/publications')).data).toEqual([]);
  });

  it('users get 1020 on the operator routes, nothing changes; a rejection needs its reason, then tells it', async () => {
    const [req] = await mine();
    for (const who of [a, b]) {
      expect((await call(who, 'GET', '/publications/action/pending')).message.code).toBe(1020);
      expect((await call(who, 'POST', `/publications/${req.id}/review`, { approve: true })).message.code).toBe(1020);
      expect((await call(who, 'POST', `/publications/${req.id}/review`, {})).message.code).toBe(1020);
    }
    expect((await call<ImagePublication[]>(op, 'GET', '/publications/action/pending')).data.map((p) => p.id)).toEqual([req.id]);
    const bare = await call(op, 'POST', `/publications/${req.id}/review`, { approve: false });
    expect(bare.message.code).toBe(1005);
    expect(bare.message.message).toContain('reason');
    expect((await mine())[0]).toMatchObject({ id: req.id, state: 'pending' });
    expect(await entries(req.id)).toEqual([]);
    expect(await told(req.id)).toEqual([]);

    expect((await call(op, 'POST', `/publications/${req.id}/review`, { approve: false, reason: '请补充镜像说明' })).data).toMatchObject({ state: 'rejected', reason: '请补充镜像说明' });
    expect((await entries(req.id)).map((e) => [e.action, e.actorName, e.targetType, e.targetName, JSON.parse(e.before), JSON.parse(e.after), e.reason])).toEqual([
      ['image.review', op.username, 'image', `${a.ns}/app:v1`, { state: 'pending' }, { state: 'rejected' }, '请补充镜像说明'],
    ]);
    expect((await told(req.id)).map((m) => m.title)).toEqual(['公共镜像申请未通过']);
    expect((await told(req.id))[0].content).toContain('请补充镜像说明');
    expect((await picker(b)).some((i) => i.id === `public/${a.ns}/app:v1`)).toBe(false);
    // Decided: refused again, nothing written.
    expect((await call(op, 'POST', `/publications/${req.id}/review`, { approve: true })).message.code).toBe(1205);
    expect(await entries(req.id)).toHaveLength(1);
  });

  it('an approval copies exactly that digest to public/ and offers it to everyone, with one entry and a message', async () => {
    t.clock.advance(1000);
    const req = (await call<ImagePublication>(a, 'POST', '/publications', { name: `${a.ns}/app`, tag: 'v1' })).data;
    // Asked again after the rejection: newest first, the image page reads a tag's latest.
    expect((await mine()).map((p) => p.state)).toEqual(['pending', 'rejected']);
    const done = await call<ImagePublication>(op, 'POST', `/publications/${req.id}/review`, { approve: true });
    expect(done.message.code, done.message.message).toBe(0);
    expect(done.data).toMatchObject({ state: 'approved', target: `public/${a.ns}/app:v1` });
    expect((await entries(req.id)).map((e) => [e.action, JSON.parse(e.before), JSON.parse(e.after)])).toEqual([
      ['image.review', { state: 'pending' }, { state: 'approved', image: `public/${a.ns}/app:v1` }],
    ]);
    expect((await told(req.id)).map((m) => m.title)).toEqual(['镜像已设为公共镜像']);
    // In B's task form, as a public image (and accepted there by id).
    const item = (await picker(b)).find((i) => i.id === `public/${a.ns}/app:v1`);
    expect(item).toMatchObject({ visibility: 'public', uri: `docker://${registry.url.slice(7)}/public/${a.ns}/app:v1` });
    // The registry holds the same manifest under public/, read with B's own registry login (pull in public/).
    const { password } = (await call(b, 'POST', '/registry/credential/reset')).data;
    const tokenRes = await t.app.inject({
      method: 'GET',
      url: `${IMAGE_BASE}/registry/token?service=suanli-registry&scope=repository:public/${a.ns}/app:pull`,
      headers: { authorization: `Basic ${Buffer.from(`${b.username}:${password}`).toString('base64')}` },
    });
    const res = await fetch(`${registry.url}/v2/public/${a.ns}/app/manifests/v1`, {
      headers: { authorization: `Bearer ${JSON.parse(tokenRes.body).token}`, accept: 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-content-digest')).toBe(digest);
    expect((await call<ImagePublication[]>(op, 'GET', '/publications/action/pending')).data).toEqual([]);
  });

  it('the decision and its entry commit together: when the entry cannot be written the request stays pending', async () => {
    const img = buildOciImage(path.join(tmp, 'other'), 'v2', { 'g.txt': 'other\n' });
    ociArchive(img, path.join(tmp, 'other.tar'));
    const home = (await t.app.ctx.clusterAccounts.ensure(a.id, 'sz-a100')).homeDir;
    fs.copyFileSync(path.join(tmp, 'other.tar'), path.join(home, 'img', 'other.tar'));
    await call(a, 'POST', '/imports', { subCenterId: 'sz-a100', path: '/img/other.tar', repository: 'other', tag: 'v2' });
    await t.app.images.service.idle();
    const req = (await call<ImagePublication>(a, 'POST', '/publications', { name: `${a.ns}/other`, tag: 'v2' })).data;
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await call(op, 'POST', `/publications/${req.id}/review`, { approve: false, reason: '不行' })).message.code).not.toBe(0);
    } finally {
      trail.record = record;
    }
    expect((await mine()).find((p) => p.id === req.id)).toMatchObject({ state: 'pending', reason: '' });
    expect(await entries(req.id)).toEqual([]);
    expect(await told(req.id)).toEqual([]);
  });
});
