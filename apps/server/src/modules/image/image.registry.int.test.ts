import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_BASE, REGISTRY_TOKEN_PATH, type ImageRepository, type RegistryCredential, type RegistryInfo } from '@suanli/contracts';
import { body, type TestApp } from '../../../test/harness';
import { buildOciImage } from '../../../test/oci-image';
import { startGatewayWithRegistry, type startRegistry } from '../../../test/registry';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** skopeo, asynchronously: the gateway answering its token requests runs in this very process. */
function skopeo(args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('skopeo', ['--insecure-policy', ...args], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}` }));
  });
}

/**
 * Issue 11 criterion 3: Debian's docker-registry with the gateway as its token issuer, and skopeo as the
 * independent client. A user pushes with their registry credential and sees the image through the API with
 * the right digest and size; another user can neither pull nor push it; a deleted tag is gone.
 */
describe('images in the platform registry', () => {
  let t: TestApp;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  let address: string;
  const users: { token: string; username: string; ns: string; password: string }[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-image-'));

  beforeAll(async () => {
    const env = await startGatewayWithRegistry(2, 'Img');
    ({ t, registry, address } = env);
    users.push(...env.users);
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    await t?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const api = <T>(method: 'GET' | 'POST' | 'DELETE', url: string, token: string | null, query?: Record<string, string>) =>
    t.app.inject({ method, url: `${IMAGE_BASE}${url}`, query, headers: token ? { token } : {} }).then((r) => body<T>(r));

  it('pushes with skopeo and the user\'s credential; the API lists it with the registry\'s digest and size', async () => {
    const [a] = users;
    const info = await api<RegistryInfo>('GET', '/registry', a.token);
    expect(info.data).toEqual({ address, namespace: a.ns, username: a.username, hasCredential: true });
    const img = buildOciImage(path.join(tmp, 'img1'), 'v1', { 'app/hello.txt': 'hello from suanli\n' });
    const push = await skopeo(['copy', `oci:${img.dir}:v1`, `docker://${address}/${a.ns}/demo:v1`, '--dest-tls-verify=false', '--dest-creds', `${a.username}:${a.password}`]);
    expect(push.ok, push.out).toBe(true);

    // What the registry holds, as skopeo (not our code) reads it: skopeo compressed the layer on the way, so
    // the stored manifest is not the one built here.
    const inspect = await skopeo(['inspect', '--tls-verify=false', '--creds', `${a.username}:${a.password}`, `docker://${address}/${a.ns}/demo:v1`]);
    expect(inspect.ok, inspect.out).toBe(true);
    const raw = await skopeo(['inspect', '--raw', '--tls-verify=false', '--creds', `${a.username}:${a.password}`, `docker://${address}/${a.ns}/demo:v1`]);
    const stored = JSON.parse(raw.out) as { config: { size: number }; layers: { size: number }[] };
    const digest = JSON.parse(inspect.out).Digest as string;
    expect(digest).toBe(`sha256:${sha(raw.out)}`);

    const list = await api<ImageRepository[]>('GET', '/images', a.token);
    expect(list.message.code, list.message.message).toBe(0);
    expect(list.data).toEqual([
      {
        name: `${a.ns}/demo`,
        tags: [{ tag: 'v1', digest, sizeBytes: stored.config.size + stored.layers[0].size, layers: 1, created: Date.parse(img.created), pullCommand: `docker pull ${address}/${a.ns}/demo:v1` }],
      },
    ]);
    const detail = await api<ImageRepository>('GET', '/images/detail', a.token, { name: `${a.ns}/demo` });
    expect(detail.data.tags[0].digest).toBe(digest);
  });

  it('another user can neither pull nor push it, nor see it through the API; a wrong password gets 401', async () => {
    const [a, b] = users;
    const pull = await skopeo(['copy', '--src-tls-verify=false', '--src-creds', `${b.username}:${b.password}`, `docker://${address}/${a.ns}/demo:v1`, `oci:${path.join(tmp, 'stolen')}:v1`]);
    expect(pull.ok).toBe(false);
    const img = buildOciImage(path.join(tmp, 'img2'), 'v1', { 'app/hello.txt': 'not yours\n' });
    const push = await skopeo(['copy', `oci:${img.dir}:v1`, `docker://${address}/${a.ns}/demo:evil`, '--dest-tls-verify=false', '--dest-creds', `${b.username}:${b.password}`]);
    expect(push.ok).toBe(false);

    // The registry itself refuses b's token for a's repository.
    const tokenRes = await fetch(`http://127.0.0.1:${(t.app.server.address() as { port: number }).port}${REGISTRY_TOKEN_PATH}?service=suanli-registry&scope=repository:${a.ns}/demo:pull,push`, {
      headers: { authorization: `Basic ${Buffer.from(`${b.username}:${b.password}`).toString('base64')}` },
    });
    const { token } = (await tokenRes.json()) as { token: string };
    expect(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).access).toEqual([]);
    const res = await fetch(`${registry.url}/v2/${a.ns}/demo/manifests/v1`, { headers: { authorization: `Bearer ${token}` } });
    expect([401, 403]).toContain(res.status);
    const bad = await fetch(`http://127.0.0.1:${(t.app.server.address() as { port: number }).port}${REGISTRY_TOKEN_PATH}?service=suanli-registry`, {
      headers: { authorization: `Basic ${Buffer.from(`${a.username}:wrong`).toString('base64')}` },
    });
    expect(bad.status).toBe(401);

    expect((await api<ImageRepository[]>('GET', '/images', b.token)).data).toEqual([]);
    expect((await api('GET', '/images/detail', b.token, { name: `${a.ns}/demo` })).message.code).toBe(2403);
    expect((await api('DELETE', '/images/tags', b.token, { name: `${a.ns}/demo`, tag: 'v1' })).message.code).toBe(2403);
    expect((await api('GET', '/images', null)).message.code).toBe(10133);
    // b's own namespace works for b.
    const own = await skopeo(['copy', `oci:${img.dir}:v1`, `docker://${address}/${b.ns}/mine:v1`, '--dest-tls-verify=false', '--dest-creds', `${b.username}:${b.password}`]);
    expect(own.ok, own.out).toBe(true);
  });

  it('a deleted tag is gone from the registry', async () => {
    const [a] = users;
    expect((await api('DELETE', '/images/tags', a.token, { name: `${a.ns}/demo`, tag: 'v1' })).message.code).toBe(0);
    const inspect = await skopeo(['inspect', '--tls-verify=false', '--creds', `${a.username}:${a.password}`, `docker://${address}/${a.ns}/demo:v1`]);
    expect(inspect.ok).toBe(false);
    expect((await api<ImageRepository[]>('GET', '/images', a.token)).data).toEqual([]);
    expect((await api('GET', '/images/detail', a.token, { name: `${a.ns}/demo` })).message.code).toBe(2403);
  });

  it('a reset credential replaces the old one', async () => {
    const [a] = users;
    const fresh = (await api<RegistryCredential>('POST', '/registry/credential/reset', a.token)).data;
    const img = buildOciImage(path.join(tmp, 'img3'), 'v1', { 'app/hello.txt': 'again\n' });
    expect((await skopeo(['copy', `oci:${img.dir}:v1`, `docker://${address}/${a.ns}/demo:v2`, '--dest-tls-verify=false', '--dest-creds', `${a.username}:${a.password}`])).ok).toBe(false);
    expect((await skopeo(['copy', `oci:${img.dir}:v1`, `docker://${address}/${a.ns}/demo:v2`, '--dest-tls-verify=false', '--dest-creds', `${a.username}:${fresh.password}`])).ok).toBe(true);
  });
});
