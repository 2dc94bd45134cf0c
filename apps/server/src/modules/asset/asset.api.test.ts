// Over 400 lines: one app and three users per engine, and the cases build on each other's datasets (v1 → v2 → mounts → ACLs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_BASE, MODEL_BASE, SYNC_BASE, TRAINING_BASE, type Task, type AssetDetail, type AssetFileEntry, type AssetPage, type AssetVersion } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { registerAndLogin } from '../../../test/users';
import { seedPublicAssets } from './public-seed';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
/** The folder's ACL as `getfacl` prints it (numeric ids), without the comment lines. */
const aclOf = (dir: string) => {
  const r = spawnSync('getfacl', ['--numeric', '-p', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`getfacl ${dir}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l && !l.startsWith('#'));
};
/** The entries a private asset's folder has: the platform's, then one per uid that may read it (getfacl's order). */
const privateAcl = (...uids: number[]) => ['user::rwx', ...[...uids].sort((x, y) => x - y).map((u) => `user:${u}:r-x`), 'group::r-x', 'mask::r-x', 'other::---'];
/**
 * What another process reads of `file`: as `nobody`, or as a cluster account's uid (the api tier's accounts
 * have no passwd entries; setpriv takes the number). null when the kernel refuses.
 */
const readAs = (who: number | 'nobody', file: string) => {
  const r =
    who === 'nobody'
      ? spawnSync('runuser', ['-u', 'nobody', '--', 'cat', file], { encoding: 'utf8' })
      : spawnSync('setpriv', [`--reuid=${who}`, `--regid=${who}`, '--clear-groups', 'cat', file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
};

/**
 * Datasets and models through the API on both engines: every call's success, 1005 naming the field, no
 * token, another user's asset refused unless shared, a shared user reading but not changing; versions as
 * immutable snapshots (sha256 of the version's bytes unchanged after the source folder changes).
 */
describe.each(engines)('datasets and models api (%s)', (engine) => {
  let t: TestApp;
  let a: { token: string; username: string; home: string; id: string };
  let b: { token: string; username: string; id: string };
  let c: { token: string; username: string; id: string };

  beforeAll(async () => {
    t = await createTestApp(engine);
    const ra = await registerAndLogin(t.app);
    const rb = await registerAndLogin(t.app);
    const rc = await registerAndLogin(t.app);
    const acc = await t.app.ctx.clusterAccounts.ensure(ra.user.id, 'sz-a100');
    a = { token: ra.token, username: ra.user.username, home: path.join(t.dataDir, 'centers/sz-a100/home', acc.account), id: ra.user.id };
    b = { token: rb.token, username: rb.user.username, id: rb.user.id };
    c = { token: rc.token, username: rc.user.username, id: rc.user.id };
    // mkdtemp made the data dir 0700; on a center the accounts reach the storage root (what ADR 0013 is about
    // is below it), so the tests that read as other accounts see only the asset area's own modes and ACLs.
    fs.chmodSync(t.dataDir, 0o711);
    // The user's own folder, as an upload would have left it.
    fs.mkdirSync(path.join(a.home, 'data/mnist/train'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/mnist/README.md'), '# MNIST 手写数字\n\n<script>alert(1)</script>\n\n- 训练集 60000\n');
    fs.writeFileSync(path.join(a.home, 'data/mnist/train/images.bin'), Buffer.alloc(300_000, 7));
    fs.writeFileSync(path.join(a.home, 'data/mnist/labels.csv'), 'id,label\n1,5\n');
  });
  afterAll(() => t.close());

  const api = (base: string) => (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token: string | null = a.token) =>
    t.app.inject({ method, url: `${base}${url}`, payload, headers: token ? { token } : {} }).then((r) => body(r));
  const ds = api(DATASET_BASE);
  const md = api(MODEL_BASE);
  const ready = async (id: string, kind: 'dataset' | 'model' = 'dataset') => {
    await t.app.assets.datasets.idle();
    await t.app.assets.models.idle();
    return (await (kind === 'dataset' ? ds : md)('GET', `/${kind}s/${id}`)).data as AssetDetail;
  };
  const download = (id: string, versionId: string, p: string, token = a.token) =>
    t.app.inject({ method: 'GET', url: `${DATASET_BASE}/datasets/${id}/versions/${versionId}/download`, query: { path: p }, headers: { token } });

  let datasetId: string;
  let v1: AssetVersion;

  it('creates a dataset with v1 from a folder; the version records size and file count and becomes ready', async () => {
    const res = await ds('POST', '/datasets', { name: 'MNIST 手写数字', description: '经典数据集', tags: ['图像', '分类', '图像'], license: 'CC BY 4.0', source: { subCenterId: 'sz-a100', path: '/data/mnist', note: '初版' } });
    expect(res.message.code, res.message.message).toBe(0);
    const d = res.data as AssetDetail;
    expect(d).toMatchObject({ name: 'MNIST 手写数字', tags: ['图像', '分类'], license: 'CC BY 4.0', visibility: 'private', mine: true, ownerName: a.username, kind: 'dataset' });
    expect(d.versions).toHaveLength(1);
    datasetId = d.id;
    const done = await ready(datasetId);
    v1 = done.versions[0];
    expect(v1).toMatchObject({ version: 1, state: 'ready', subCenterId: 'sz-a100', sourcePath: '/data/mnist', note: '初版', fileCount: 3, sizeBytes: 300_000 + Buffer.byteLength('id,label\n1,5\n') + Buffer.byteLength('# MNIST 手写数字\n\n<script>alert(1)</script>\n\n- 训练集 60000\n'), mountPath: '/mnt/datasets/MNIST 手写数字/v1' });
    expect(v1.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(done.latestSizeBytes).toBe(v1.sizeBytes);
  });

  it('a version stays byte-identical after its source folder changes (sha256), and is read-only on disk', async () => {
    const before = await download(datasetId, v1.id, '/train/images.bin');
    expect(before.statusCode).toBe(200);
    expect(sha(before.rawPayload)).toBe(sha(Buffer.alloc(300_000, 7)));
    fs.writeFileSync(path.join(a.home, 'data/mnist/train/images.bin'), Buffer.alloc(1000, 9));
    fs.rmSync(path.join(a.home, 'data/mnist/labels.csv'));
    const after = await download(datasetId, v1.id, '/train/images.bin');
    expect(sha(after.rawPayload)).toBe(sha(Buffer.alloc(300_000, 7)));
    expect((await download(datasetId, v1.id, '/labels.csv')).rawPayload.toString()).toBe('id,label\n1,5\n');
    // The snapshot on disk: files 0444, folders 0555, and the manifest sha256sum can check.
    const dir = path.join(t.dataDir, 'centers/sz-a100/.assets', datasetId, v1.id);
    expect(fs.statSync(path.join(dir, 'labels.csv')).mode & 0o777).toBe(0o444);
    expect(fs.statSync(path.join(dir, 'train')).mode & 0o777).toBe(0o555);
    const manifest = fs.readFileSync(`${dir}.sha256`, 'utf8');
    expect(manifest).toContain(`${sha(Buffer.alloc(300_000, 7))}  train/images.bin\n`);
    expect(sha(manifest)).toBe(v1.digest);
  });

  it('adds v2 from the changed folder; lists files, reads the README as text, pages with keyword and tag', async () => {
    const res = await ds('POST', `/datasets/${datasetId}/versions`, { subCenterId: 'sz-a100', path: '/data/mnist', note: '更新' });
    expect(res.message.code, res.message.message).toBe(0);
    expect((res.data as AssetVersion).version).toBe(2);
    const d = await ready(datasetId);
    expect(d.versions.map((v) => [v.version, v.state, v.fileCount])).toEqual([
      [2, 'ready', 2],
      [1, 'ready', 3],
    ]);
    const files = await ds('GET', `/datasets/${datasetId}/versions/${v1.id}/files?path=/`);
    expect((files.data as AssetFileEntry[]).map((f) => [f.name, f.type])).toEqual([
      ['train', 'dir'],
      ['labels.csv', 'file'],
      ['README.md', 'file'],
    ]);
    const sub = await ds('GET', `/datasets/${datasetId}/versions/${v1.id}/files?path=/train`);
    expect(sub.data).toEqual([{ name: 'images.bin', type: 'file', size: 300_000 }]);
    const readme = await ds('GET', `/datasets/${datasetId}/versions/${v1.id}/readme`);
    expect(readme.data).toEqual({ fileName: 'README.md', markdown: expect.stringContaining('# MNIST 手写数字') });
    const missing = await ds('GET', `/datasets/${datasetId}/versions/${v1.id}/files?path=/nope`);
    expect(missing.message.code).toBe(1302);
    const escape = await ds('GET', `/datasets/${datasetId}/versions/${v1.id}/files?path=/../../..`);
    expect(escape.message.code).toBe(1308);

    const page = await ds('POST', '/datasets/action/page', { pageNum: 1, pageSize: 10, scope: 'own', keyword: 'mnist' });
    expect((page.data as AssetPage).list.map((x) => [x.name, x.versionCount])).toEqual([['MNIST 手写数字', 2]]);
    expect(((await ds('POST', '/datasets/action/page', { scope: 'own', tag: '分类' })).data as AssetPage).total).toBe(1);
    expect(((await ds('POST', '/datasets/action/page', { scope: 'own', tag: '分' })).data as AssetPage).total).toBe(0);
  });

  it('refuses bad input with 1005 naming the field, and clashes and bad folders with their own codes', async () => {
    const cases: [object, string][] = [
      [{ name: '' }, 'name'],
      [{ name: 'a/b' }, 'name'],
      [{ name: '.hidden' }, 'name'],
      [{ name: 'x', tags: ['a'.repeat(21)] }, 'tags'],
      [{ name: 'x', source: { subCenterId: 'sz-a100', path: '/data/none' } }, 'source.path'],
      [{ name: 'x', source: { subCenterId: 'nowhere', path: '/data' } }, 'source.subCenterId'],
    ];
    for (const [payload, field] of cases) {
      const r = await ds('POST', '/datasets', payload);
      expect(r.message.code, JSON.stringify(payload)).toBe(1005);
      expect(r.message.message).toContain(field);
    }
    expect((await ds('POST', '/datasets', { name: 'MNIST 手写数字' })).message.code).toBe(2301);
    expect((await ds('POST', `/datasets/${datasetId}/versions`, { subCenterId: 'sz-a100', path: '/data/mnist/labels.csv' })).message.code).toBe(1005);
    // Nothing half-made: the failed creations left no asset behind.
    expect(((await ds('POST', '/datasets/action/page', { scope: 'own' })).data as AssetPage).total).toBe(1);
  });

  it('a link in the source is never followed: the snapshot leaves it out', async () => {
    fs.mkdirSync(path.join(a.home, 'data/linked'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/linked/ok.txt'), 'ok');
    fs.symlinkSync('/etc', path.join(a.home, 'data/linked/etc'));
    fs.symlinkSync('/etc/hostname', path.join(a.home, 'data/linked/hostname'));
    const r = await ds('POST', '/datasets', { name: '带链接', source: { subCenterId: 'sz-a100', path: '/data/linked' } });
    const d = await ready((r.data as AssetDetail).id);
    expect(d.versions[0]).toMatchObject({ state: 'ready', fileCount: 1, sizeBytes: 2 });
    const link = await ds('POST', '/datasets', { name: '链接本身', source: { subCenterId: 'sz-a100', path: '/data/linked/etc' } });
    expect(link.message.code).toBe(1308);
    expect((await ds('DELETE', `/datasets/${d.id}`)).message.code).toBe(0);
  });

  it('needs a token for every call', async () => {
    for (const [m, u] of [
      ['POST', '/datasets/action/page'],
      ['POST', '/datasets'],
      ['GET', `/datasets/${datasetId}`],
      ['PUT', `/datasets/${datasetId}`],
      ['DELETE', `/datasets/${datasetId}`],
      ['GET', `/datasets/${datasetId}/versions/${v1.id}/files`],
      ['POST', `/datasets/${datasetId}/shares`],
    ] as const) {
      expect((await ds(m, u, {}, null)).message.code, `${m} ${u}`).toBe(10133);
    }
  });

  it('another user cannot see, read, edit, delete or share it; once shared they read but cannot change it', async () => {
    const asB = (m: 'GET' | 'POST' | 'PUT' | 'DELETE', u: string, p?: object) => ds(m, u, p, b.token);
    expect((await asB('GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect((await asB('GET', `/datasets/${datasetId}/versions/${v1.id}/files`)).message.code).toBe(1205);
    expect((await download(datasetId, v1.id, '/labels.csv', b.token)).json().message.code).toBe(1205);
    expect((await asB('PUT', `/datasets/${datasetId}`, { description: '改' })).message.code).toBe(1205);
    expect((await asB('DELETE', `/datasets/${datasetId}`)).message.code).toBe(1205);
    expect((await asB('POST', `/datasets/${datasetId}/shares`, { usernames: [b.username] })).message.code).toBe(1205);
    expect(((await asB('POST', '/datasets/action/page', { scope: 'shared' })).data as AssetPage).total).toBe(0);

    expect((await ds('POST', `/datasets/${datasetId}/shares`, { usernames: ['nobody-here'] })).message.code).toBe(2306);
    expect((await ds('POST', `/datasets/${datasetId}/shares`, { usernames: [a.username] })).message.code).toBe(1005);
    const shared = await ds('POST', `/datasets/${datasetId}/shares`, { usernames: [b.username.toUpperCase()] });
    expect(shared.message.code, shared.message.message).toBe(0);
    expect(shared.data).toMatchObject({ visibility: 'shared', shares: [{ username: b.username }] });

    const seen = await asB('GET', `/datasets/${datasetId}`);
    expect(seen.data).toMatchObject({ mine: false, ownerName: a.username, shares: [] });
    expect((await download(datasetId, v1.id, '/labels.csv', b.token)).rawPayload.toString()).toBe('id,label\n1,5\n');
    expect(((await asB('POST', '/datasets/action/page', { scope: 'shared' })).data as AssetPage).list.map((x) => x.id)).toEqual([datasetId]);
    expect((await asB('PUT', `/datasets/${datasetId}`, { description: '改' })).message.code).toBe(2307);
    expect((await asB('DELETE', `/datasets/${datasetId}`)).message.code).toBe(2307);
    expect((await asB('POST', `/datasets/${datasetId}/versions`, { subCenterId: 'sz-a100', path: '/' })).message.code).toBe(2307);
    expect((await asB('DELETE', `/datasets/${datasetId}/versions/${v1.id}`)).message.code).toBe(2307);
    // A third user still sees nothing.
    expect((await ds('GET', `/datasets/${datasetId}`, undefined, c.token)).message.code).toBe(1205);

    const userId = (shared.data as AssetDetail).shares[0].userId;
    const unshared = await ds('DELETE', `/datasets/${datasetId}/shares/${userId}`);
    expect(unshared.data).toMatchObject({ visibility: 'private', shares: [] });
    expect((await asB('GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
  });

  it('edits, asks for publication, deletes a version and then the dataset with its files', async () => {
    const edited = await ds('PUT', `/datasets/${datasetId}`, { description: '新的描述', tags: ['图像'] });
    expect(edited.data).toMatchObject({ description: '新的描述', tags: ['图像'] });
    const pub = await ds('POST', `/datasets/${datasetId}/publish`);
    expect(pub.data).toMatchObject({ publishState: 'pending' });
    const area = path.join(t.dataDir, 'centers/sz-a100/.assets', datasetId);
    expect((await ds('DELETE', `/datasets/${datasetId}/versions/${v1.id}`)).message.code).toBe(0);
    expect(fs.existsSync(path.join(area, v1.id))).toBe(false);
    expect((await ds('GET', `/datasets/${datasetId}/versions/${v1.id}/files`)).message.code).toBe(1205);
    expect((await ds('DELETE', `/datasets/${datasetId}`)).message.code).toBe(0);
    expect(fs.existsSync(area)).toBe(false);
    expect((await ds('GET', `/datasets/${datasetId}`)).message.code).toBe(1205);
  });

  it('models: the same calls plus framework, format and metrics; kinds do not mix', async () => {
    fs.mkdirSync(path.join(a.home, 'out/resnet'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'out/resnet/model.pt'), Buffer.alloc(1024, 1));
    const r = await md('POST', '/models', { name: 'ResNet-50', framework: 'PyTorch', format: 'pt', metrics: { top1: 0.761 }, source: { subCenterId: 'sz-a100', path: '/out/resnet' } });
    expect(r.message.code, r.message.message).toBe(0);
    const m = await ready((r.data as AssetDetail).id, 'model');
    expect(m).toMatchObject({ kind: 'model', framework: 'PyTorch', format: 'pt', metrics: { top1: 0.761 }, versions: [{ state: 'ready', fileCount: 1, mountPath: '/mnt/models/ResNet-50/v1' }] });
    expect((await ds('GET', `/datasets/${m.id}`)).message.code).toBe(1205);
    expect((await md('POST', '/models', { name: 'x', metrics: { top1: 'high' } })).message.code).toBe(1005);
    // A dataset may share the model's name: names are unique per kind.
    expect((await ds('POST', '/datasets', { name: 'ResNet-50' })).message.code).toBe(0);
  });

  it('registers a model from a training task that ran to success (the version links to the task); refuses one still running or not the caller\'s', async () => {
    const train = (command: string, token = a.token) =>
      t.app
        .inject({
          method: 'POST',
          url: `${TRAINING_BASE}/tasks`,
          headers: { token },
          payload: { name: '训练 ResNet', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command, workDir: '/', env: [], maxDurationMinutes: 10 },
        })
        .then((r) => body<Task>(r).data);
    const stateOf = async (id: string) => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}`, headers: { token: a.token } })).data.state;
    const done = await train('mkdir -p run1/ckpt && echo weights > run1/ckpt/model.bin');
    await expect.poll(() => stateOf(done.id), { timeout: 20_000, interval: 100 }).toBe('SUCCEEDED');
    const running = await train('sleep 30');

    expect((await md('POST', '/models/action/register-from-task', { taskId: running.id, path: '/run1' })).message.code).toBe(2308);
    expect((await md('POST', '/models/action/register-from-task', { taskId: done.id, path: '/run1' }, b.token)).message.code).toBe(1205);
    expect((await md('POST', '/models/action/register-from-task', { taskId: done.id, path: '/none' })).message.code).toBe(1005);
    const r = await md('POST', '/models/action/register-from-task', { taskId: done.id, path: '/run1', framework: 'PyTorch' });
    expect(r.message.code, r.message.message).toBe(0);
    const m = await ready((r.data as AssetDetail).id, 'model');
    expect(m).toMatchObject({ name: '训练 ResNet', framework: 'PyTorch', versions: [{ version: 1, state: 'ready', sourceTaskId: done.id, sourcePath: '/run1', fileCount: 1 }] });
    // Again into the same model: v2.
    const again = await md('POST', '/models/action/register-from-task', { taskId: done.id, path: '/run1', modelId: m.id });
    expect((await ready((again.data as AssetDetail).id, 'model')).versions.map((v) => v.version)).toEqual([2, 1]);
    await t.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks/${running.id}/stop`, headers: { token: a.token } });
  });

  it('the public hall: the seed publishes two datasets and a model once; anyone reads them and adds one to their own list', async () => {
    const seed = () =>
      seedPublicAssets({
        dir: path.resolve(import.meta.dirname, '../../../../../config/public-assets'),
        centers: t.app.ctx.centers,
        clusterAccounts: t.app.ctx.clusterAccounts,
        storage: t.app.ctx.storage,
        services: { dataset: t.app.assets.datasets, model: t.app.assets.models },
        platformUser: async () => (await t.app.users.createAccount({ username: 'platform', nickname: '算力平台', password: 'x-Unused-1!' }))?.id ?? platformId,
      });
    let platformId = '';
    expect(await seed()).toBe(3);
    const hall = (await ds('POST', '/datasets/action/page', { scope: 'public' }, c.token)).data as AssetPage;
    expect(hall.list.map((x) => [x.name, x.visibility, x.ownerName, x.mine]).sort()).toEqual([
      ['三分类螺旋数据', 'public', '算力平台', false],
      ['正弦回归数据', 'public', '算力平台', false],
    ]);
    platformId = hall.list[0].ownerId;
    expect(await seed()).toBe(0);
    const models = (await md('POST', '/models/action/page', { scope: 'public', keyword: '螺旋' }, c.token)).data as AssetPage;
    expect(models.list.map((x) => [x.name, x.framework, x.metrics])).toEqual([['螺旋分类 MLP', 'numpy', { test_accuracy: 0.9667 }]]);

    const spiral = hall.list.find((x) => x.name === '三分类螺旋数据')!;
    const d = (await ds('GET', `/datasets/${spiral.id}`, undefined, c.token)).data as AssetDetail;
    expect(d.versions[0]).toMatchObject({ state: 'ready', fileCount: 3 });
    const csv = await download(spiral.id, d.versions[0].id, '/test.csv', c.token);
    expect(csv.rawPayload.toString().split('\n')[0]).toBe('x1,x2,label');
    // Published: every account on the center reads it on disk too (ADR 0013).
    const seeded = path.join(t.dataDir, 'centers', d.versions[0].subCenterId, '.assets', spiral.id);
    expect(modeOf(seeded)).toBe(0o755);
    expect(aclOf(seeded)).toEqual(['user::rwx', 'group::r-x', 'other::r-x']);
    expect(readAs('nobody', path.join(seeded, d.versions[0].id, 'test.csv'))?.split('\n')[0]).toBe('x1,x2,label');
    expect((await ds('PUT', `/datasets/${spiral.id}`, { description: '改' }, c.token)).message.code).toBe(2307);

    expect(((await ds('POST', '/datasets/action/page', { scope: 'shared' }, c.token)).data as AssetPage).total).toBe(0);
    expect((await ds('GET', `/datasets/${spiral.id}`, undefined, c.token)).data).toMatchObject({ added: false, ownerName: '算力平台' });
    const added = await ds('POST', `/datasets/${spiral.id}/add-to-mine`, undefined, c.token);
    expect(added.message.code).toBe(0);
    // The page can say so (添加到我的 → 已添加), now and on the next visit.
    expect(added.data).toMatchObject({ added: true });
    expect((await ds('GET', `/datasets/${spiral.id}`, undefined, c.token)).data).toMatchObject({ added: true });
    expect(((await ds('POST', '/datasets/action/page', { scope: 'shared' }, c.token)).data as AssetPage).list.map((x) => x.name)).toEqual(['三分类螺旋数据']);
    expect((await ds('GET', `/datasets/${spiral.id}`, undefined, c.token)).data).toMatchObject({ visibility: 'public' });
  });

  it('a training task mounts versions read-only (read ok, write refused), in $SUANLI_DATASET_<n>; a mounted version cannot be deleted', async () => {
    fs.mkdirSync(path.join(a.home, 'data/cifar'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/cifar/labels.txt'), 'cat\ndog\n');
    const created = await ds('POST', '/datasets', { name: 'CIFAR 子集', source: { subCenterId: 'sz-a100', path: '/data/cifar' } });
    const d = await ready((created.data as AssetDetail).id);
    const v = d.versions[0];
    const train = (command: string, mounts: object[], token = a.token, where = { subCenterId: 'sz-a100', cardTypeId: 'a100-80g', imageId: 'pytorch-2.3-cuda12' }) =>
      t.app
        .inject({
          method: 'POST',
          url: `${TRAINING_BASE}/tasks`,
          headers: { token },
          payload: { name: '挂载测试', type: 'train', ...where, cardNum: 1, nodeNum: 1, command, workDir: '/', env: [], maxDurationMinutes: 10, mounts },
        })
        .then((r) => body<Task>(r));
    const stateOf = async (id: string) => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}`, headers: { token: a.token } })).data;
    const mount = { kind: 'dataset', assetId: d.id, versionId: v.id };

    const job = await train('mkdir -p mnt-out; cat "$SUANLI_DATASET_1/labels.txt" > mnt-out/read.txt; if echo x > "$SUANLI_DATASET_1/labels.txt" 2>/dev/null || touch "$SUANLI_DATASET_1/new" 2>/dev/null; then echo WROTE; else echo READONLY; fi', [mount]);
    expect(job.message.code, job.message.message).toBe(0);
    expect(job.data.mounts).toEqual([{ ...mount, name: 'CIFAR 子集', version: 1, env: 'SUANLI_DATASET_1', path: expect.stringContaining(v.id) }]);
    await expect.poll(async () => (await stateOf(job.data.id)).state, { timeout: 20_000, interval: 100 }).toBe('SUCCEEDED');
    expect(fs.readFileSync(path.join(a.home, 'mnt-out/read.txt'), 'utf8')).toBe('cat\ndog\n');
    expect(fs.readFileSync(path.join(a.home, job.data.logPath), 'utf8')).toContain('READONLY');
    const versionDir = path.join(t.dataDir, 'centers/sz-a100/.assets', d.id, v.id);
    expect(fs.readdirSync(versionDir)).toEqual(['labels.txt']);
    expect(fs.readFileSync(path.join(versionDir, 'labels.txt'), 'utf8')).toBe('cat\ndog\n');

    // While a task that mounts it has not ended, neither the version nor the dataset can go.
    const running = await train('sleep 30', [mount]);
    expect((await ds('DELETE', `/datasets/${d.id}/versions/${v.id}`)).message.code).toBe(2302);
    expect((await ds('DELETE', `/datasets/${d.id}`)).message.code).toBe(2302);
    await t.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks/${running.data.id}/stop`, headers: { token: a.token } });
    await expect.poll(async () => (await stateOf(running.data.id)).state, { timeout: 20_000, interval: 100 }).toBe('STOPPED');

    // Another user: not without a share (1205), with one yes; a version on another center: the task waits while it is synced.
    expect((await train('true', [mount], b.token)).message.code).toBe(1205);
    const offered = async (token: string, center: string) => ((await ds('GET', `/datasets/action/mountable?subCenterId=${center}`, undefined, token)).data as { versionId: string }[]).map((x) => x.versionId);
    expect(await offered(a.token, 'sz-a100')).toContain(v.id);
    expect(await offered(a.token, 'gz-ascend')).not.toContain(v.id);
    expect(await offered(b.token, 'sz-a100')).not.toContain(v.id);
    await ds('POST', `/datasets/${d.id}/shares`, { usernames: [b.username] });
    expect(await offered(b.token, 'sz-a100')).toContain(v.id);
    expect((await train('true', [mount], b.token)).message.code).toBe(0);
    expect((await train('true', [mount, mount])).message.code).toBe(1005);
    expect((await train('true', [{ ...mount, versionId: 'nope' }])).message.code).toBe(1205);
    // A task on the other center waits while the version is synced there (a version job in the owner's
    // task panel), then runs on the copy, which is a version folder like the original.
    const other = await train('cat "$SUANLI_DATASET_1/labels.txt"', [mount], a.token, { subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', imageId: 'pytorch-2.1-cann8' });
    expect(other.message.code, other.message.message).toBe(0);
    expect(other.data.state).toBe('CREATED');
    expect(other.data.reason).toBe('等待数据同步：数据集「CIFAR 子集」v1（深圳算力分中心） 正在同步到广州算力分中心，完成后自动提交');
    const copyDir = path.join(t.dataDir, 'centers/gz-ascend/.assets', d.id, v.id);
    expect(other.data.mounts[0].path).toBe(copyDir);
    const syncs = body<{ list: { kind: string; label: string; sourceCenterId: string; targetCenterId: string }[] }>(
      await t.app.inject({ method: 'POST', url: `${SYNC_BASE}/syncs/action/page`, payload: { pageNum: 1, pageSize: 10 }, headers: { token: a.token } }),
    ).data.list;
    expect(syncs[0]).toMatchObject({ kind: 'version', label: '数据集「CIFAR 子集」v1', sourceCenterId: 'sz-a100', targetCenterId: 'gz-ascend' });
    await expect.poll(async () => (await stateOf(other.data.id)).state, { timeout: 30_000, interval: 100 }).toBe('SUCCEEDED');
    const events = body<{ events: { state: string; reason: string }[] }>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${other.data.id}`, headers: { token: a.token } })).data.events;
    // The timeline keeps why it waited.
    expect(events.slice(0, 2).map((e) => [e.state, e.reason])).toEqual([['CREATED', other.data.reason], ['SUBMITTING', '']]);
    const gzHome = path.join(t.dataDir, 'centers/gz-ascend/home', (await t.app.ctx.clusterAccounts.ensure(a.id, 'gz-ascend')).account);
    expect(fs.readFileSync(path.join(gzHome, (await stateOf(other.data.id)).logPath), 'utf8')).toContain('cat\ndog');
    expect(fs.statSync(path.join(copyDir, 'labels.txt')).mode & 0o777).toBe(0o444);
    expect(fs.statSync(copyDir).mode & 0o777).toBe(0o555);
    // The copy's asset folder there lets in the accounts on that center of who may read it (a's; b has none there).
    expect(modeOf(path.dirname(copyDir))).toBe(0o750);
    expect(aclOf(path.dirname(copyDir))).toEqual(privateAcl((await t.app.ctx.clusterAccounts.ensure(a.id, 'gz-ascend')).uid));
    expect(readAs('nobody', path.join(copyDir, 'labels.txt'))).toBeNull();
    expect(fs.readFileSync(`${copyDir}.sha256`, 'utf8')).toBe(fs.readFileSync(`${versionDir}.sha256`, 'utf8'));
    // A second task there mounts the copy at once.
    const again = await train('true', [mount], a.token, { subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', imageId: 'pytorch-2.1-cann8' });
    expect(again.data.state).not.toBe('CREATED');
    expect(again.data.reason).toBe('');
    // Once b's task has ended, the dataset can go — with its copy on the other center.
    await expect.poll(async () => (await ds('DELETE', `/datasets/${d.id}`)).message.code, { timeout: 20_000, interval: 200 }).toBe(0);
    expect(fs.existsSync(copyDir)).toBe(false);
    expect(fs.existsSync(versionDir)).toBe(false);
  });

  it('on disk a private version is readable only by the accounts that may read it: owner, shares until unshared, a new account once it mounts; published → everyone (ADR 0013)', async () => {
    fs.mkdirSync(path.join(a.home, 'data/secret/sub'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/secret/sub/s.txt'), 'secret\n');
    const created = await ds('POST', '/datasets', { name: '私有数据', source: { subCenterId: 'sz-a100', path: '/data/secret' } });
    const d = await ready((created.data as AssetDetail).id);
    const v = d.versions[0];
    const area = path.join(t.dataDir, 'centers/sz-a100/.assets');
    const dir = path.join(area, d.id);
    const file = path.join(dir, v.id, 'sub/s.txt');
    const uidOn = async (userId: string, center = 'sz-a100') => (await t.app.ctx.clusterAccounts.ensure(userId, center)).uid;
    const [ua, ub, uc] = [await uidOn(a.id), await uidOn(b.id), await uidOn(c.id)];

    // Created: the area is traversable but not listable, the asset's folder the platform's plus the owner's account.
    expect(modeOf(area)).toBe(0o711);
    expect(modeOf(dir)).toBe(0o750);
    expect(aclOf(dir)).toEqual(privateAcl(ua));
    expect(readAs(ua, file)).toBe('secret\n');
    expect(readAs(ub, file)).toBeNull();
    expect(readAs('nobody', file)).toBeNull();
    expect(readAs('nobody', `${path.join(dir, v.id)}.sha256`)).toBeNull();
    expect(spawnSync('runuser', ['-u', 'nobody', '--', 'ls', area]).status).not.toBe(0);
    // Below it the version keeps its read-only modes: the folder above decides who gets there.
    expect(modeOf(file)).toBe(0o444);
    expect(modeOf(path.join(dir, v.id, 'sub'))).toBe(0o555);

    // Shared: b's account reads, c's and nobody still not; unshared: b's account no longer.
    expect((await ds('POST', `/datasets/${d.id}/shares`, { usernames: [b.username] })).message.code).toBe(0);
    expect(aclOf(dir)).toEqual(privateAcl(ua, ub));
    expect(modeOf(dir)).toBe(0o750);
    expect(readAs(ub, file)).toBe('secret\n');
    expect(readAs(uc, file)).toBeNull();
    expect(readAs('nobody', file)).toBeNull();
    expect((await ds('DELETE', `/datasets/${d.id}/shares/${b.id}`)).message.code).toBe(0);
    expect(aclOf(dir)).toEqual(privateAcl(ua));
    expect(readAs(ub, file)).toBeNull();

    // A user with no account on the center yet: nothing to add there when shared; their task makes the
    // account, and its mount lets that account in.
    const e = await registerAndLogin(t.app);
    expect((await ds('POST', `/datasets/${d.id}/shares`, { usernames: [e.user.username] })).message.code).toBe(0);
    expect(await t.app.ctx.clusterAccounts.list(e.user.id, 'sz-a100')).toEqual([]);
    expect(aclOf(dir)).toEqual(privateAcl(ua));
    const task = body<Task>(
      await t.app.inject({
        method: 'POST',
        url: `${TRAINING_BASE}/tasks`,
        headers: { token: e.token },
        payload: { name: '读共享', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'cat "$SUANLI_DATASET_1/sub/s.txt"', workDir: '/', env: [], maxDurationMinutes: 5, mounts: [{ kind: 'dataset', assetId: d.id, versionId: v.id }] },
      }),
    );
    expect(task.message.code, task.message.message).toBe(0);
    const ue = await uidOn(e.user.id);
    expect(aclOf(dir)).toEqual(privateAcl(ua, ue));
    expect(readAs(ue, file)).toBe('secret\n');
    await expect.poll(async () => body<Task>(await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${task.data.id}`, headers: { token: e.token } })).data.state, { timeout: 20_000, interval: 100 }).toBe('SUCCEEDED');

    // Published (an operator approves): every account reads it; no named entries are left.
    const op = await registerAndLogin(t.app);
    await t.app.ctx.access.grant(op.user.id, 'operator');
    expect((await ds('POST', `/datasets/${d.id}/publish`)).data).toMatchObject({ publishState: 'pending' });
    expect(aclOf(dir)).toEqual(privateAcl(ua, ue));
    expect((await ds('POST', `/datasets/${d.id}/publish/review`, { approve: true }, op.token)).data).toMatchObject({ visibility: 'public' });
    expect(modeOf(dir)).toBe(0o755);
    expect(aclOf(dir)).toEqual(['user::rwx', 'group::r-x', 'other::r-x']);
    expect(readAs('nobody', file)).toBe('secret\n');
  });

  it('a disk that refuses the ACL fails the change loudly and leaves the folder closed, never readable by others', async () => {
    fs.mkdirSync(path.join(a.home, 'data/acl'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/acl/x.txt'), 'x');
    const created = await ds('POST', '/datasets', { name: '权限失败', source: { subCenterId: 'sz-a100', path: '/data/acl' } });
    const d = await ready((created.data as AssetDetail).id);
    const dir = path.join(t.dataDir, 'centers/sz-a100/.assets', d.id);
    const ua = (await t.app.ctx.clusterAccounts.ensure(a.id, 'sz-a100')).uid;
    const ub = (await t.app.ctx.clusterAccounts.ensure(b.id, 'sz-a100')).uid;
    // A setfacl that answers as on a filesystem without ACL support, found first on PATH for this test only.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-nofacl-'));
    fs.writeFileSync(path.join(bin, 'setfacl'), '#!/bin/sh\nfor a; do last=$a; done\necho "setfacl: $last: Operation not supported" >&2\nexit 1\n', { mode: 0o755 });
    const path0 = process.env.PATH;
    process.env.PATH = `${bin}:${path0}`;
    let refused: Awaited<ReturnType<typeof ds>>;
    let failed: AssetDetail;
    try {
      refused = await ds('POST', `/datasets/${d.id}/shares`, { usernames: [b.username] });
      const again = await ds('POST', '/datasets', { name: '权限失败二', source: { subCenterId: 'sz-a100', path: '/data/acl' } });
      failed = await ready((again.data as AssetDetail).id);
    } finally {
      process.env.PATH = path0;
      fs.rmSync(bin, { recursive: true, force: true });
    }
    // The share is refused and not kept; the folder is closed (0700) — even the owner's account waits for the next apply.
    expect(refused.message).toEqual({ code: 1300, message: '数据目录的访问权限设置失败，请联系管理员' });
    expect((await ready(d.id)).shares).toEqual([]);
    expect(modeOf(dir)).toBe(0o700);
    expect(readAs(ub, path.join(dir, d.versions[0].id, 'x.txt'))).toBeNull();
    // A new version whose folder cannot be opened to its owner fails (its copy removed) rather than being served.
    expect(failed.versions[0]).toMatchObject({ state: 'failed', reason: '数据目录的访问权限设置失败，请联系管理员' });
    expect(fs.existsSync(path.join(t.dataDir, 'centers/sz-a100/.assets', failed.id, failed.versions[0].id))).toBe(false);
    expect(modeOf(path.join(t.dataDir, 'centers/sz-a100/.assets', failed.id))).toBe(0o700);
    // With ACLs back, the next change sets the exact set again.
    expect((await ds('POST', `/datasets/${d.id}/shares`, { usernames: [b.username] })).message.code).toBe(0);
    expect(aclOf(dir)).toEqual(privateAcl(ua, ub));
  });

  it('start-up re-applies every asset folder once: an area written before ADR 0013 (0755, no ACL) is closed', async () => {
    fs.mkdirSync(path.join(a.home, 'data/old'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/old/o.txt'), 'old\n');
    const created = await ds('POST', '/datasets', { name: '旧版本区域', source: { subCenterId: 'sz-a100', path: '/data/old' } });
    const d = await ready((created.data as AssetDetail).id);
    const area = path.join(t.dataDir, 'centers/sz-a100/.assets');
    const dir = path.join(area, d.id);
    const file = path.join(dir, d.versions[0].id, 'o.txt');
    // What an older gateway left: everything world-readable.
    expect(spawnSync('setfacl', ['-b', dir]).status).toBe(0);
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(area, 0o755);
    fs.mkdirSync(path.join(area, 'orphan-folder'), { mode: 0o755 });
    expect(readAs('nobody', file)).toBe('old\n');
    // Another gateway process starts on the same data and database.
    const second = await createTestApp(engine, { dataDir: t.dataDir, databaseUrl: t.config.databaseUrl });
    try {
      expect(modeOf(area)).toBe(0o711);
      expect(modeOf(dir)).toBe(0o750);
      expect(aclOf(dir)).toEqual(privateAcl((await t.app.ctx.clusterAccounts.ensure(a.id, 'sz-a100')).uid));
      expect(readAs('nobody', file)).toBeNull();
      expect(modeOf(path.join(area, 'orphan-folder'))).toBe(0o700);
    } finally {
      await second.close();
      fs.rmSync(path.join(area, 'orphan-folder'), { recursive: true, force: true });
    }
  });

  it('an operator approves or rejects publication requests; others cannot; the owner is told', async () => {
    const op = await registerAndLogin(t.app);
    await t.app.ctx.access.grant(op.user.id, 'operator');
    fs.mkdirSync(path.join(a.home, 'data/pub'), { recursive: true });
    fs.writeFileSync(path.join(a.home, 'data/pub/x.txt'), 'x');
    const make = async (name: string) => {
      const r = await ds('POST', '/datasets', { name, source: { subCenterId: 'sz-a100', path: '/data/pub' } });
      await ready((r.data as AssetDetail).id);
      expect((await ds('POST', `/datasets/${(r.data as AssetDetail).id}/publish`)).data).toMatchObject({ publishState: 'pending' });
      return (r.data as AssetDetail).id;
    };
    const yes = await make('申请公开甲');
    const no = await make('申请公开乙');

    expect((await ds('GET', '/datasets/action/pending-publication', undefined, b.token)).message.code).toBe(1020);
    expect((await ds('POST', `/datasets/${yes}/publish/review`, { approve: true }, b.token)).message.code).toBe(1020);
    expect((await ds('POST', `/datasets/${yes}/publish/review`, { approve: true })).message.code).toBe(1020);
    const pending = (await ds('GET', '/datasets/action/pending-publication', undefined, op.token)).data as { id: string }[];
    expect(pending.map((x) => x.id)).toEqual(expect.arrayContaining([yes, no]));
    expect((await ds('POST', `/datasets/${yes}/publish/review`, {}, op.token)).message.code).toBe(1005);

    expect((await ds('POST', `/datasets/${yes}/publish/review`, { approve: true }, op.token)).data).toMatchObject({ visibility: 'public', publishState: 'published' });
    expect((await ds('POST', `/datasets/${no}/publish/review`, { approve: false, reason: '缺少许可协议' }, op.token)).data).toMatchObject({ visibility: 'private', publishState: 'none' });
    expect((await ds('POST', `/datasets/${yes}/publish/review`, { approve: false }, op.token)).message.code).toBe(1205);
    const hall = (await ds('POST', '/datasets/action/page', { scope: 'public', keyword: '申请公开' }, c.token)).data as AssetPage;
    expect(hall.list.map((x) => x.name)).toEqual(['申请公开甲']);
    const messages = await t.app.ctx.db.selectFrom('messages').select(['title', 'content']).where('user_id', '=', (await ds('GET', `/datasets/${yes}`)).data.ownerId).execute();
    expect(messages.map((m) => m.title)).toEqual(expect.arrayContaining(['数据集已公开', '数据集的公开申请未通过']));
    expect(messages.find((m) => m.title === '数据集的公开申请未通过')?.content).toContain('缺少许可协议');
  });
});
