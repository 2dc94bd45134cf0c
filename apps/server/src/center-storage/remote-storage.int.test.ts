import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { DATASET_BASE, IMAGE_BASE, TRAINING_BASE, type AssetDetail, type ImageImport, type TaskDetail, type TaskLog, type TaskMetrics } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../test/harness';
import { FileClient } from '../../test/file-client';
import { buildOciImage, ociArchive } from '../../test/oci-image';
import { freePort, startProcess, stopProcess } from '../../test/process';
import { startRegistry } from '../../test/registry';
import { registerAndLogin } from '../../test/users';
import { serverEntryArgs } from '../../test/server-bundle';
import { trainingForm } from '../../test/training-form';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * Issue 18, acceptance 4: a gateway whose centers' disks are NOT on its host — each center's storage is only
 * reachable through that center's file service, a separate OS process (`file-service/main.ts`) — still runs a
 * task on the local executor and reads its log and metrics, makes a dataset version (and mounts it into the
 * task) and imports an image archive into the real registry.
 *
 * To show the gateway never opens a center's disk itself, its centers file puts the storage at
 * `<tmp>/nodes/<center>` — where the center's nodes (here: the local executor's jobs) see it — and that path does
 * not exist on this host except while the task runs, when it is a link to the file services' storage
 * (`<tmp>/share/<center>`) as a node's mount would be. The file services' own centers file names the real place.
 * Everything but the job itself happens while the path is missing, so a read by the gateway would fail and a
 * write (a mkdir -p) would leave it behind; neither happens, and the file services log the calls they served.
 */
describe('a gateway whose centers have no local storage: file services only (sqlite)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-remote-storage-'));
  const nodes = path.join(tmp, 'nodes');
  const share = path.join(tmp, 'share');
  const centerIds = ['sz-a100', 'gz-ascend'];
  let t: TestApp;
  let registry: Awaited<ReturnType<typeof startRegistry>> | undefined;
  const fsProcs = new Map<string, { child: ChildProcess; port: number; log: string[] }>();
  let token = '';
  let userId = '';
  let szClient: FileClient;

  beforeAll(async () => {
    const gwPort = await freePort();
    const registryPort = await freePort();
    for (const id of centerIds) fsProcs.set(id, { child: null as unknown as ChildProcess, port: await freePort(), log: [] });
    // The gateway's centers file: every center only through its file service, the storage where nodes see it.
    const doc = YAML.parse(fs.readFileSync(path.join(repoRoot, 'config/centers.yaml'), 'utf8')) as { centers: Record<string, unknown>[] };
    const centersFile = (root: string, name: string) => {
      for (const c of doc.centers) {
        const id = c.id as string;
        Object.assign(c, { storageRoot: path.join(root, id), fileServiceUrl: `http://127.0.0.1:${fsProcs.get(id)!.port}`, storageAccess: 'fileService' });
      }
      const file = path.join(tmp, name);
      fs.writeFileSync(file, YAML.stringify(doc));
      return file;
    };
    const gatewayCenters = centersFile(nodes, 'centers.gateway.yaml');
    // The file services' centers file: the same centers, the storage where it really is (their hosts' mount).
    const serviceCenters = centersFile(share, 'centers.file-services.yaml');

    // The file services first: they need nothing from the gateway until a call comes.
    for (const id of centerIds) {
      const p = fsProcs.get(id)!;
      const { child } = await startProcess(process.execPath, await serverEntryArgs('file-service/main.ts'), {
        cwd: repoRoot,
        env: { CENTER_ID: id, CENTERS_FILE: serviceCenters, DATA_DIR: path.join(tmp, `fs-${id}`), GATEWAY_URL: `http://127.0.0.1:${gwPort}`, HOST: '127.0.0.1', PORT: String(p.port), LOG_LEVEL: 'info' },
        ready: (line) => (line.includes('Server listening') ? true : undefined),
      });
      child.stdout!.on('data', (b: Buffer) => p.log.push(b.toString('utf8')));
      p.child = child;
    }
    const settings = { url: `http://127.0.0.1:${registryPort}`, address: `127.0.0.1:${registryPort}`, service: 'suanli-registry', issuer: 'suanli-gateway' };
    t = await createTestApp('sqlite', { centersFile: gatewayCenters, registry: settings, clock: Date.now });
    await t.app.listen({ host: '127.0.0.1', port: gwPort });
    registry = await startRegistry({ port: registryPort, gatewayUrl: `http://127.0.0.1:${gwPort}`, certFile: t.app.images.tokenCertFile!, service: settings.service, issuer: settings.issuer });
    const u = await registerAndLogin(t.app);
    token = u.token;
    userId = u.user.id;
    // The console's way into a center's storage: its file service, with the session token.
    szClient = new FileClient(`http://127.0.0.1:${fsProcs.get('sz-a100')!.port}/api/v1`, token);
  }, 90_000);

  afterAll(async () => {
    // A link (or, were the gateway to make it, a folder): removed itself, never what a link points to.
    fs.rmSync(nodes, { recursive: true, force: true });
    await registry?.stop();
    await t?.close();
    for (const p of fsProcs.values()) if (p.child) await stopProcess(p.child);
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  const api = <T = any>(method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { token } }).then((r) => body<T>(r));
  const served = (id: string, route: string) => fsProcs.get(id)!.log.join('').includes(`"url":"/api/v1/storage${route}`);

  it('every center of the gateway reaches its storage only over HTTP', () => {
    for (const id of centerIds) expect(t.app.ctx.storage.of(id).transport).toBe('http');
    expect(fs.existsSync(nodes)).toBe(false);
  });

  let version: { assetId: string; versionId: string; digest: string } | undefined;

  it('creates a dataset version from a folder uploaded to the file service: snapshot, manifest, files, README and download through it', async () => {
    const files: Record<string, string> = { 'README.md': '# 远程数据\n只在文件服务上', 'train/a.txt': 'alpha from the center\n', 'train/b.csv': 'x,y\n1,2\n' };
    for (const [rel, content] of Object.entries(files)) {
      const dir = `/data/${path.posix.dirname(rel)}`.replace(/\/\.$/, '');
      expect((await szClient.upload(dir, path.posix.basename(rel), Buffer.from(content))).code).toBe(0);
    }
    const created = await api<AssetDetail>('POST', `${DATASET_BASE}/datasets`, { name: '远程数据集', source: { subCenterId: 'sz-a100', path: '/data', note: 'v1' } });
    expect(created.message.code, created.message.message).toBe(0);
    await t.app.assets.datasets.idle();
    const detail = (await api<AssetDetail>('GET', `${DATASET_BASE}/datasets/${created.data.id}`)).data;
    const manifest = Object.keys(files)
      .sort()
      .map((rel) => `${sha256(files[rel])}  ${rel}\n`)
      .join('');
    expect(detail.versions[0]).toMatchObject({ state: 'ready', fileCount: 3, digest: sha256(manifest), sourcePath: '/data' });
    version = { assetId: detail.id, versionId: detail.versions[0].id, digest: detail.versions[0].digest };
    // The version is on the file service's disk, read-only, its folder closed to all but the owner's account.
    const dir = path.join(share, 'sz-a100/.assets', detail.id, version.versionId);
    expect(fs.readFileSync(`${dir}.sha256`, 'utf8')).toBe(manifest);
    expect(fs.statSync(path.join(dir, 'train/a.txt')).mode & 0o777).toBe(0o444);
    expect(fs.statSync(path.join(share, 'sz-a100/.assets', detail.id)).mode & 0o777).toBe(0o750);

    const base = `${DATASET_BASE}/datasets/${detail.id}/versions/${version.versionId}`;
    expect((await api('GET', `${base}/files?path=/train`)).data).toEqual([
      { name: 'a.txt', type: 'file', size: files['train/a.txt'].length },
      { name: 'b.csv', type: 'file', size: files['train/b.csv'].length },
    ]);
    expect((await api('GET', `${base}/readme`)).data).toEqual({ markdown: files['README.md'], fileName: 'README.md' });
    const dl = await t.app.inject({ method: 'GET', url: `${base}/download?path=/train/a.txt`, headers: { token } });
    expect(dl.body).toBe(files['train/a.txt']);
    // A folder that is not in the home is refused on the request, as with a local disk.
    expect((await api('POST', `${DATASET_BASE}/datasets/${detail.id}/versions`, { subCenterId: 'sz-a100', path: '/nope' })).message.code).toBe(1005);

    for (const route of ['/home/stat', '/assets/snapshot', '/assets/access', '/assets/version/list', '/assets/version/readme', '/assets/version/file']) expect(served('sz-a100', route), route).toBe(true);
    expect(fs.existsSync(nodes)).toBe(false);
  });

  it('imports an image archive uploaded to the file service into the registry', async () => {
    const img = buildOciImage(path.join(tmp, 'oci'), 'remote', { 'hello.txt': 'from a remote center\n' });
    const archive = path.join(tmp, 'oci.tar');
    ociArchive(img, archive);
    expect((await szClient.upload('/images', 'app.tar', fs.readFileSync(archive))).code).toBe(0);
    const started = await api<ImageImport>('POST', `${IMAGE_BASE}/imports`, { subCenterId: 'sz-a100', path: '/images/app.tar', repository: 'remote-app' });
    expect(started.message.code, started.message.message).toBe(0);
    await t.app.images.service.idle();
    const done = (await api<ImageImport>('GET', `${IMAGE_BASE}/imports/${started.data.id}`)).data;
    expect(done).toMatchObject({ state: 'succeeded', percent: 100, format: 'oci-archive', tag: 'remote', digest: img.manifestDigest });
    // A file that is not there is refused on the request (1005 naming path), as with a local disk.
    const missing = await api('POST', `${IMAGE_BASE}/imports`, { subCenterId: 'sz-a100', path: '/images/none.tar', repository: 'x' });
    expect([missing.message.code, missing.message.message]).toEqual([1005, expect.stringContaining('path')]);
    expect(served('sz-a100', '/home/file')).toBe(true);
    expect(fs.existsSync(nodes)).toBe(false);
  });

  it('runs a task on the local executor that mounts the version, and reads its log and metrics through the file service', async () => {
    expect((await szClient.upload('/work', 'run.sh', Buffer.from('echo "run.sh in $PWD"\n'))).code).toBe(0);
    // The center's nodes mount its storage where the gateway's centers file says; here, for the job's lifetime.
    fs.symlinkSync(share, nodes);
    let id = '';
    try {
      const created = await api<TaskDetail>(
        'POST',
        `${TRAINING_BASE}/tasks`,
        trainingForm({
          name: '远程存储上的任务',
          command: 'bash run.sh; cat "$SUANLI_DATASET_1/train/a.txt"; for s in 1 2; do echo "{\\"step\\":$s,\\"loss\\":0.$s}" >> "$SUANLI_METRICS_FILE"; done',
          maxDurationMinutes: 5,
          mounts: [{ kind: 'dataset', assetId: version!.assetId, versionId: version!.versionId }],
        }),
      );
      expect(created.message.code, created.message.message).toBe(0);
      id = created.data.id;
      await expect.poll(async () => (await api<TaskDetail>('GET', `${TRAINING_BASE}/tasks/${id}`)).data.state, { timeout: 30_000, interval: 200 }).toBe('SUCCEEDED');
    } finally {
      // The gateway's host has no disk of the center again for everything that follows.
      fs.rmSync(nodes, { force: true });
    }
    expect(fs.existsSync(nodes)).toBe(false);
    const log = (await api<TaskLog>('GET', `${TRAINING_BASE}/tasks/${id}/log?offset=0`)).data;
    expect(log.content).toContain(`run.sh in ${path.join(nodes, 'sz-a100/home')}`);
    expect(log.content).toContain('alpha from the center');
    expect(log.eof).toBe(true);
    const metrics = (await api<TaskMetrics>('GET', `${TRAINING_BASE}/tasks/${id}/metrics?offset=0`)).data;
    expect(metrics.points).toEqual([
      { step: 1, loss: 0.1 },
      { step: 2, loss: 0.2 },
    ]);
    const download = await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${id}/log/download`, headers: { token } });
    expect(download.body).toBe(fs.readFileSync(path.join(share, 'sz-a100/home', (await t.app.ctx.clusterAccounts.list(userId, 'sz-a100'))[0].account, 'work', `suanli-${id}.log`), 'utf8'));
    // A work dir that is not there is refused on the request, naming the field.
    const bad = await api('POST', `${TRAINING_BASE}/tasks`, { name: 'x', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'true', workDir: '/no-such-dir', env: [], maxDurationMinutes: 5 });
    expect([bad.message.code, bad.message.message]).toEqual([1005, expect.stringContaining('workDir')]);
    expect(fs.existsSync(nodes)).toBe(false);
  });
});
