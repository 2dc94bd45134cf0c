import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_BASE, TRAINING_BASE, type ImageImport, type ImageItem, type ImageRepository } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { buildOciImage, ociArchive } from '../../../test/oci-image';
import { freePort } from '../../../test/process';
import { startRegistry } from '../../../test/registry';
import { registerAndLogin } from '../../../test/users';

/**
 * Image calls on both engines without a registry configured (the embedded default): each answers 2401 in
 * Chinese, needs a token, and validates its input. With a real registry: image.registry.int.test.ts.
 */
describe.each(engines)('images api without a registry (%s)', (engine) => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp(engine);
    token = (await registerAndLogin(t.app)).token;
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, tok: string | null = token, query?: Record<string, string>) =>
    t.app.inject({ method, url: `${IMAGE_BASE}${url}`, query, headers: tok ? { token: tok } : {} }).then((r) => body(r));

  it('every call says the registry is not configured', async () => {
    for (const [m, u, q] of [
      ['GET', '/registry', undefined],
      ['POST', '/registry/credential/reset', undefined],
      ['GET', '/images', undefined],
      ['GET', '/images/detail', { name: 'x/y' }],
      ['DELETE', '/images/tags', { name: 'x/y', tag: 'v1' }],
      ['GET', '/imports/x', undefined],
    ] as const) {
      const r = await call(m, u, token, q);
      expect(r.message, `${m} ${u}`).toEqual({ code: 2401, message: '镜像仓库未配置' });
    }
    const imp = await t.app.inject({ method: 'POST', url: `${IMAGE_BASE}/imports`, payload: { subCenterId: 'sz-a100', path: '/a.tar', repository: 'x' }, headers: { token } }).then((r) => body(r));
    expect(imp.message).toEqual({ code: 2401, message: '镜像仓库未配置' });
    // The task form still gets the public catalogue.
    const items = (await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/images`, headers: { token } }).then((r) => body(r))).data as ImageItem[];
    expect(items.length).toBeGreaterThan(3);
    expect(items.every((i) => i.visibility === 'public')).toBe(true);
  });

  it('needs a token and names the missing field', async () => {
    expect((await call('GET', '/images', null)).message.code).toBe(10133);
    const r = await call('GET', '/images/detail', token, {});
    expect(r.message.code).toBe(1005);
    expect(r.message.message).toContain('name');
  });
});

/**
 * The calls with a real docker-registry on both engines; images arrive through the server's own import
 * (skopeo pushes and the registry's refusals: image.registry.int.test.ts, image.import.int.test.ts).
 */
describe.each(engines)('images api with a registry (%s)', (engine) => {
  let t: TestApp;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-image-api-'));
  let a: { token: string; id: string; ns: string };
  let b: { token: string; id: string; ns: string };

  beforeAll(async () => {
    const port = await freePort();
    const settings = { url: `http://127.0.0.1:${port}`, address: `127.0.0.1:${port}`, service: 'suanli-registry', issuer: 'suanli-gateway' };
    t = await createTestApp(engine, { registry: settings });
    // Nothing here asks the gateway for a token through the registry: the realm is never called.
    registry = await startRegistry({ port, gatewayUrl: 'http://127.0.0.1:9', certFile: t.app.images.tokenCertFile!, service: settings.service, issuer: settings.issuer });
    const ua = await registerAndLogin(t.app);
    const ub = await registerAndLogin(t.app);
    a = { token: ua.token, id: ua.user.id, ns: ua.user.username.toLowerCase() };
    b = { token: ub.token, id: ub.user.id, ns: ub.user.username.toLowerCase() };
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await registry?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const call = <T = any>(method: 'GET' | 'POST' | 'DELETE', url: string, o: { token?: string | null; payload?: object; query?: Record<string, string> } = {}) =>
    t.app.inject({ method, url: `${IMAGE_BASE}${url}`, payload: o.payload, query: o.query, headers: o.token === null ? {} : { token: o.token ?? a.token } }).then((r) => body<T>(r));

  /** An image in A's namespace through the import (the archive placed in A's storage as an upload leaves it). */
  async function importImage(repository: string, tag: string) {
    const img = buildOciImage(path.join(tmp, `${repository}-${tag}`), tag, { 'f.txt': `${repository}:${tag}\n` });
    ociArchive(img, path.join(tmp, `${repository}-${tag}.tar`));
    const center = t.app.ctx.centers.find((c) => c.id === 'sz-a100')!;
    const home = (await t.app.ctx.clusterAccounts.ensure(a.id, center.id)).homeDir;
    fs.mkdirSync(path.join(home, 'img'), { recursive: true });
    fs.copyFileSync(path.join(tmp, `${repository}-${tag}.tar`), path.join(home, 'img', `${repository}-${tag}.tar`));
    const started = await call<ImageImport>('POST', '/imports', { payload: { subCenterId: 'sz-a100', path: `/img/${repository}-${tag}.tar`, repository } });
    expect(started.message.code, started.message.message).toBe(0);
    await t.app.images.service.idle();
    const done = (await call<ImageImport>('GET', `/imports/${started.data.id}`)).data;
    expect(done.state, done.message).toBe('succeeded');
    return { img, done };
  }

  it('import → list → detail → delete tag, with the digest and size of the image', async () => {
    const { img, done } = await importImage('app', 'v1');
    expect(done).toMatchObject({ repository: `${a.ns}/app`, tag: 'v1', digest: img.manifestDigest, format: 'oci-archive', percent: 100 });
    const list = await call<ImageRepository[]>('GET', '/images');
    expect(list.data).toEqual([{ name: `${a.ns}/app`, tags: [expect.objectContaining({ tag: 'v1', digest: img.manifestDigest, sizeBytes: img.sizeBytes, layers: 1, created: Date.parse(img.created) })] }]);
    const detail = await call<ImageRepository>('GET', '/images/detail', { query: { name: `${a.ns}/app` } });
    expect(detail.data.tags[0].pullCommand).toBe(`docker pull ${registry.url.slice(7)}/${a.ns}/app:v1`);
    expect((await call('DELETE', '/images/tags', { query: { name: `${a.ns}/app`, tag: 'v1' } })).message.code).toBe(0);
    expect((await call<ImageRepository[]>('GET', '/images')).data).toEqual([]);
  });

  it("another user's image and import are refused and nothing leaks", async () => {
    const { done } = await importImage('secret', 'v1');
    expect((await call<ImageRepository[]>('GET', '/images', { token: b.token })).data).toEqual([]);
    const detail = await call('GET', '/images/detail', { token: b.token, query: { name: `${a.ns}/secret` } });
    expect(detail.message.code).toBe(2403);
    expect(detail.data).toBeNull();
    expect((await call('DELETE', '/images/tags', { token: b.token, query: { name: `${a.ns}/secret`, tag: 'v1' } })).message.code).toBe(2403);
    const imp = await call('GET', `/imports/${done.id}`, { token: b.token });
    expect(imp.message.code).toBe(1205);
    expect(imp.data).toBeNull();
    // Still there for its owner.
    expect((await call<ImageRepository>('GET', '/images/detail', { query: { name: `${a.ns}/secret` } })).data.tags).toHaveLength(1);
  });

  it('imports: bad input is 1005 naming the field; no token is 10133', async () => {
    const base = { subCenterId: 'sz-a100', path: '/img/none.tar', repository: 'r' };
    const cases: [object, string][] = [
      [{ ...base, repository: 'Bad Name' }, 'repository'],
      [{ ...base, repository: 'a'.repeat(65) }, 'repository'],
      [{ ...base, subCenterId: 'nowhere' }, 'subCenterId'],
      [base, 'path'],
      [{ ...base, path: '/img' }, 'path'],
      [{ ...base, path: '../x.tar' }, 'path'],
      [{ ...base, tag: '.x' }, 'tag'],
      [{ subCenterId: 'sz-a100', repository: 'r' }, 'path'],
    ];
    for (const [payload, field] of cases) {
      const res = await call('POST', '/imports', { payload });
      expect([1005, 1308], JSON.stringify(payload)).toContain(res.message.code);
      if (res.message.code === 1005) expect(res.message.message, JSON.stringify(payload)).toContain(field);
    }
    expect((await call('POST', '/imports', { payload: base, token: null })).message.code).toBe(10133);
    expect((await call('GET', '/imports/x', { token: null })).message.code).toBe(10133);
    expect((await call('GET', '/imports/nope')).message.code).toBe(1205);
  });

  it('a user named public gets a namespace of their own, not the operators\' one (pull only there)', async () => {
    const u = await registerAndLogin(t.app, { username: 'Public' });
    const info = (await call('GET', '/registry', { token: u.token })).data;
    expect(info.namespace).toBe(`u-${u.user.id.toLowerCase()}`);
    const { password } = (await call('POST', '/registry/credential/reset', { token: u.token })).data;
    const res = await t.app.inject({
      method: 'GET',
      url: `${IMAGE_BASE}/registry/token?service=suanli-registry&scope=repository:public/base:pull,push&scope=repository:${info.namespace}/app:pull,push`,
      headers: { authorization: `Basic ${Buffer.from(`public:${password}`).toString('base64')}` },
    });
    expect(res.statusCode).toBe(200);
    const claims = JSON.parse(Buffer.from(JSON.parse(res.body).token.split('.')[1], 'base64url').toString());
    expect(claims.access).toEqual([
      { type: 'repository', name: 'public/base', actions: ['pull'] },
      { type: 'repository', name: `${info.namespace}/app`, actions: ['pull', 'push'] },
    ]);
  });

  it("the training form's picker adds the caller's private tags, marked private with the owner", async () => {
    await importImage('picked', 'v2');
    const pick = async (token: string, q = '') => (await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/images${q}`, headers: { token } }).then((r) => body(r))).data as ImageItem[];
    const items = await pick(a.token, '?cardTypeId=ascend-910b');
    expect(items.filter((i) => i.visibility === 'private').map((i) => [i.id, i.owner])).toEqual(
      expect.arrayContaining([[`${a.ns}/picked:v2`, a.ns]]),
    );
    expect(items.filter((i) => i.visibility !== 'private').every((i) => i.cardVendors.includes('Huawei'))).toBe(true);
    // A framework filter is about the public catalogue (private images declare none).
    expect((await pick(a.token, '?framework=PyTorch')).every((i) => i.visibility === 'public')).toBe(true);
    expect((await pick(b.token)).some((i) => i.visibility === 'private')).toBe(false);
  });
});
