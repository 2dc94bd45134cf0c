import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_BASE, TRAINING_BASE, WS_IMAGE_IMPORT_CHANGED, type ImageImport, type ImageItem, type ImageRepository, type WsEvent } from '@suanli/contracts';
import { body, type TestApp } from '../../../test/harness';
import { buildOciImage, ociArchive, skopeo, type BuiltImage } from '../../../test/oci-image';
import { startGatewayWithRegistry, type startRegistry } from '../../../test/registry';

/**
 * Importing image archives the user uploaded to storage (issue 11 item 3, ADR 0009 §5) and private images in
 * the task form (§6), against the real docker-registry; skopeo writes the docker-archive and reads back what
 * the server pushed. The gateway listens on a real port: skopeo gets its tokens there.
 */
describe('image import from storage and the task form (sqlite)', () => {
  let t: TestApp;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  let address: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-image-import-'));
  const users: { token: string; id: string; username: string; ns: string; password: string }[] = [];

  beforeAll(async () => {
    const env = await startGatewayWithRegistry(2, 'Imp');
    ({ t, registry, address } = env);
    users.push(...env.users);
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    await t?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const api = <T = any>(method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    t.app.inject({ method, url: `${IMAGE_BASE}${url}`, payload, headers: { token } }).then((r) => body<T>(r));
  const creds = (u: (typeof users)[number]) => `${u.username}:${u.password}`;
  const inspectRaw = async (u: (typeof users)[number], ref: string) =>
    JSON.parse(await skopeo(['inspect', '--raw', '--tls-verify=false', '--creds', creds(u), `docker://${address}/${ref}`])) as { layers: { digest: string; size: number }[]; config: { digest: string } };

  /** Puts a file into the user's home on sz-a100, as an upload through the file service leaves it. */
  async function placeInStorage(userId: string, rel: string, from: string) {
    const center = t.app.ctx.centers.find((c) => c.id === 'sz-a100')!;
    const home = (await t.app.ctx.clusterAccounts.ensure(userId, center.id)).homeDir;
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(home, rel));
  }

  async function importAndWait(token: string, payload: object): Promise<ImageImport> {
    const started = await api<ImageImport>('POST', '/imports', token, payload);
    expect(started.message.code, started.message.message).toBe(0);
    expect(started.data.state).toBe('running');
    await t.app.images.service.idle();
    return (await api<ImageImport>('GET', `/imports/${started.data.id}`, token)).data;
  }

  it('imports an oci-archive through the registry API: the manifest digest is the archive\'s, progress goes to the socket', async () => {
    const [a] = users;
    const events: ImageImport[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e: WsEvent) => {
      if (userId === a.id && e.businessType === WS_IMAGE_IMPORT_CHANGED) events.push(e.data);
    });
    const img = buildOciImage(path.join(tmp, 'oci'), 'release', { 'data/a.txt': 'imported\n', 'big.bin': 'x'.repeat(300_000) });
    const file = path.join(tmp, 'oci.tar');
    ociArchive(img, file);
    await placeInStorage(a.id, 'images/app.tar', file);
    const done = await importAndWait(a.token, { subCenterId: 'sz-a100', path: '/images/app.tar', repository: 'imported' });
    off();
    expect(done).toMatchObject({ state: 'succeeded', percent: 100, format: 'oci-archive', tag: 'release', digest: img.manifestDigest, repository: `${a.ns}/imported`, path: '/images/app.tar' });
    expect(events.at(-1)).toMatchObject({ state: 'succeeded', percent: 100 });
    expect(events.some((e) => e.state === 'running' && e.format === 'oci-archive')).toBe(true);
    // skopeo reads back exactly the built image; the console's list shows its digest and size.
    const raw = await inspectRaw(a, `${a.ns}/imported:release`);
    expect(raw.layers.map((l) => l.digest)).toEqual([img.layerDigest]);
    const list = (await api<ImageRepository[]>('GET', '/images', a.token)).data;
    expect(list.find((r) => r.name === `${a.ns}/imported`)?.tags.map((x) => [x.tag, x.digest, x.sizeBytes])).toEqual([['release', img.manifestDigest, img.sizeBytes]]);
  });

  it('imports a docker-archive (written by skopeo) under the tag asked for', async () => {
    const [a] = users;
    const img = buildOciImage(path.join(tmp, 'docker'), 'v3', { 'bin/tool': 'echo docker\n' });
    const file = path.join(tmp, 'docker.tar');
    await skopeo(['copy', `oci:${img.dir}:v3`, `docker-archive:${file}:example/tool:v3`]);
    await placeInStorage(a.id, 'images/tool.tar', file);
    const done = await importAndWait(a.token, { subCenterId: 'sz-a100', path: '/images/tool.tar', repository: 'tool', tag: 'imported' });
    expect(done, done.message).toMatchObject({ state: 'succeeded', format: 'docker-archive', tag: 'imported' });
    const raw = await inspectRaw(a, `${a.ns}/tool:imported`);
    expect(raw.layers).toHaveLength(1);
    // The layer went in as the archive holds it (uncompressed): its digest is the config's diff_id.
    const config = JSON.parse(await skopeo(['inspect', '--config', '--tls-verify=false', '--creds', creds(a), `docker://${address}/${a.ns}/tool:imported`])) as { rootfs: { diff_ids: string[] } };
    expect(config.rootfs.diff_ids).toEqual([raw.layers[0].digest]);
  });

  it('an archive that is not a valid image fails with a Chinese message naming the problem, and nothing is pushed', async () => {
    const [a] = users;
    const cases: [string, (file: string) => void, RegExp][] = [
      ['not-a-tar.tar', (f) => fs.writeFileSync(f, 'this is not a tar file at all'.repeat(40)), /^镜像文件无效：不是 tar 文件$/],
      [
        'no-manifest.tar',
        (f) => {
          fs.mkdirSync(`${f}.d`);
          fs.writeFileSync(path.join(`${f}.d`, 'readme.txt'), 'hi');
          ociArchive({ dir: `${f}.d` } as BuiltImage, f);
        },
        /未找到 manifest\.json/,
      ],
      [
        'corrupt-layer.tar',
        (f) => {
          const img = buildOciImage(`${f}.d`, 'v1', { 'x.txt': 'x' });
          fs.appendFileSync(path.join(img.dir, 'blobs/sha256', img.layerDigest.slice(7)), 'tampered');
          ociArchive(img, f);
        },
        /blobs\/sha256\/[0-9a-f]{64} 的内容与摘要不符/,
      ],
      [
        'truncated.tar',
        (f) => {
          const img = buildOciImage(`${f}.d`, 'v1', { 'y.bin': 'y'.repeat(100_000) });
          ociArchive(img, `${f}.full`);
          const full = fs.readFileSync(`${f}.full`);
          fs.writeFileSync(f, full.subarray(0, Math.floor(full.length / 2)));
        },
        /文件不完整/,
      ],
    ];
    for (const [name, make, expected] of cases) {
      const file = path.join(tmp, name);
      make(file);
      await placeInStorage(a.id, `bad/${name}`, file);
      const done = await importAndWait(a.token, { subCenterId: 'sz-a100', path: `/bad/${name}`, repository: 'broken', tag: 'v1' });
      expect(done.state, name).toBe('failed');
      expect(done.message, name).toMatch(expected);
    }
    // Nothing reached the registry: no tag to pull, no repository in the list.
    await expect(inspectRaw(a, `${a.ns}/broken:v1`)).rejects.toThrow();
    expect((await api<ImageRepository[]>('GET', '/images', a.token)).data.map((r) => r.name)).not.toContain(`${a.ns}/broken`);
    // A path that is not a file is refused on the request itself, naming the field.
    const missing = await api('POST', '/imports', a.token, { subCenterId: 'sz-a100', path: '/bad/none.tar', repository: 'broken' });
    expect(missing.message.code).toBe(1005);
    expect(missing.message.message).toContain('path');
  });

  it("another user's import is not theirs to read", async () => {
    const [a, b] = users;
    const started = await api<ImageImport>('POST', '/imports', a.token, { subCenterId: 'sz-a100', path: '/images/tool.tar', repository: 'tool2' });
    await t.app.images.service.idle();
    expect((await api('GET', `/imports/${started.data.id}`, b.token)).message.code).toBe(1205);
    expect((await api('GET', `/imports/${started.data.id}`, a.token)).data.state).toBe('succeeded');
  });

  it("the task form's picker offers the caller's private tags; a training task accepts only the caller's own", async () => {
    const [a, b] = users;
    const pick = async (token: string, q = '') => (await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/images${q}`, headers: { token } }).then((r) => body(r))).data as ImageItem[];
    const items = await pick(a.token, '?cardTypeId=a100-80g');
    const mine = items.filter((i) => i.visibility === 'private');
    expect(mine.map((i) => i.id).sort()).toEqual([`${a.ns}/imported:release`, `${a.ns}/tool:imported`, `${a.ns}/tool2:v3`].sort());
    expect(mine.every((i) => i.owner === a.ns && i.uri === `docker://${address}/${i.id}`)).toBe(true);
    expect(items.some((i) => i.visibility === 'public')).toBe(true);
    expect((await pick(b.token)).some((i) => i.id.startsWith(`${a.ns}/`))).toBe(false);

    const acc = await t.app.ctx.clusterAccounts.ensure(a.id, 'sz-a100');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
    const form = { name: '私有镜像任务', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: `${a.ns}/imported:release`, command: 'echo hi', workDir: '/work', env: [], maxDurationMinutes: 5 };
    const submit = (token: string, over: object = {}) => t.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks`, payload: { ...form, ...over }, headers: { token } }).then((r) => body(r));
    const created = await submit(a.token);
    expect(created.message.code, created.message.message).toBe(0);
    expect(created.data.imageName).toBe(`${a.ns}/imported:release`);
    expect(t.app.tasks.service.specOf(await t.app.ctx.db.selectFrom('tasks').selectAll().where('id', '=', created.data.id).executeTakeFirstOrThrow()).image).toEqual({
      id: `${a.ns}/imported:release`,
      uri: `docker://${address}/${a.ns}/imported:release`,
    });
    // Someone else's private image, or a tag that does not exist: 2006.
    expect((await submit(b.token)).message.code).toBe(2006);
    expect((await submit(a.token, { imageId: `${a.ns}/imported:nope` })).message.code).toBe(2006);
  });
});
