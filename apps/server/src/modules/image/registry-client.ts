import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ErrorCode } from '@suanli/contracts';
import { AppError } from '../../errors';
import { signToken, type Access, type RegistryKey } from './registry-token';

const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

export interface Manifest {
  digest: string;
  config: { digest: string; size: number };
  layers: { digest: string; size: number }[];
}

/**
 * The registry's HTTP API as the gateway uses it (listing, manifests, deletes), each call with a short
 * token the gateway signs for itself with exactly the access that call needs.
 */
export class RegistryClient {
  constructor(
    private readonly url: string,
    private readonly key: RegistryKey,
    private readonly o: { issuer: string; service: string; clock: () => number },
  ) {}

  private async call(pathname: string, access: Access[], init: RequestInit = {}): Promise<Response> {
    const token = this.token(access);
    let res: Response;
    try {
      res = await fetch(`${this.url}${pathname}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(15_000) });
    } catch {
      throw new AppError(ErrorCode.REGISTRY_FAILED);
    }
    if (res.status === 404) throw new AppError(ErrorCode.IMAGE_NOT_FOUND);
    if (!res.ok && res.status !== 202) throw new AppError(ErrorCode.REGISTRY_FAILED, `镜像仓库请求失败（HTTP ${res.status}），请稍后重试`);
    return res;
  }

  /** Every repository name (the catalog; the registry pages at most 1 000 at a time). */
  async repositories(): Promise<string[]> {
    const res = await this.call('/v2/_catalog?n=1000', [{ type: 'registry', name: 'catalog', actions: ['*'] }]);
    return ((await res.json()) as { repositories?: string[] }).repositories ?? [];
  }

  async tags(name: string): Promise<string[]> {
    try {
      const res = await this.call(`/v2/${name}/tags/list`, [{ type: 'repository', name, actions: ['pull'] }]);
      return ((await res.json()) as { tags?: string[] | null }).tags ?? [];
    } catch (e) {
      // A repository whose tags were all deleted answers 404 for its tag list.
      if (e instanceof AppError && e.code === ErrorCode.IMAGE_NOT_FOUND) return [];
      throw e;
    }
  }

  async manifest(name: string, reference: string): Promise<Manifest> {
    const res = await this.call(`/v2/${name}/manifests/${reference}`, [{ type: 'repository', name, actions: ['pull'] }], { headers: { accept: MANIFEST_TYPES } });
    const body = (await res.json()) as Omit<Manifest, 'digest'>;
    return { digest: res.headers.get('docker-content-digest') ?? '', config: body.config, layers: body.layers ?? [] };
  }

  /** The image config's `created` time, when it has one. */
  async created(name: string, configDigest: string): Promise<number | null> {
    const res = await this.call(`/v2/${name}/blobs/${configDigest}`, [{ type: 'repository', name, actions: ['pull'] }]);
    const created = ((await res.json()) as { created?: string }).created;
    const t = created ? Date.parse(created) : NaN;
    return Number.isFinite(t) ? t : null;
  }

  async deleteManifest(name: string, digest: string): Promise<void> {
    await this.call(`/v2/${name}/manifests/${digest}`, [{ type: 'repository', name, actions: ['*'] }], { method: 'DELETE' });
  }

  private token(access: Access[], ttlSeconds = 60) {
    return signToken(this.key, { issuer: this.o.issuer, service: this.o.service, subject: 'suanli-gateway', access, now: this.o.clock(), ttlSeconds });
  }

  async blobExists(name: string, digest: string): Promise<boolean> {
    try {
      await this.call(`/v2/${name}/blobs/${digest}`, [{ type: 'repository', name, actions: ['pull'] }], { method: 'HEAD' });
      return true;
    } catch (e) {
      if (e instanceof AppError && e.code === ErrorCode.IMAGE_NOT_FOUND) return false;
      throw e;
    }
  }

  /**
   * Uploads a blob from a file in one streamed PUT (monolithic upload), reporting bytes sent. Not through
   * `call`: a layer of gigabytes takes longer than its timeout; here only silence (no progress for a minute)
   * fails the upload.
   */
  async uploadBlob(name: string, digest: string, file: string, size: number, onBytes: (n: number) => void): Promise<void> {
    const access = [{ type: 'repository', name, actions: ['pull', 'push'] }];
    const start = await this.call(`/v2/${name}/blobs/uploads/`, access, { method: 'POST' });
    const location = start.headers.get('location');
    if (start.status !== 202 || !location) throw new AppError(ErrorCode.REGISTRY_FAILED);
    const target = new URL(location, this.url);
    target.searchParams.set('digest', digest);
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        onBytes(chunk.length);
        cb(null, chunk);
      },
    });
    // Long enough for a layer of many GiB; the upload fails only on silence (see the timeout below).
    const authorization = `Bearer ${this.token(access, 6 * 3600)}`;
    const status = await new Promise<number>((resolve, reject) => {
      const req = (target.protocol === 'https:' ? https : http).request(
        target,
        { method: 'PUT', timeout: 60_000, headers: { authorization, 'content-type': 'application/octet-stream', 'content-length': size } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('registry upload stalled')));
      req.on('error', reject);
      pipeline(fs.createReadStream(file), counter, req).catch(reject);
    }).catch(() => 0);
    if (status !== 201) throw new AppError(ErrorCode.REGISTRY_FAILED);
  }

  /** A manifest as the registry holds it: its bytes and media type (to put elsewhere byte for byte) and its blobs. */
  async rawManifest(name: string, reference: string): Promise<{ mediaType: string; bytes: Buffer; manifest: Manifest }> {
    const res = await this.call(`/v2/${name}/manifests/${reference}`, [{ type: 'repository', name, actions: ['pull'] }], { headers: { accept: MANIFEST_TYPES } });
    const bytes = Buffer.from(await res.arrayBuffer());
    const body = JSON.parse(bytes.toString('utf8')) as Omit<Manifest, 'digest'> & { mediaType?: string };
    const mediaType = res.headers.get('content-type') ?? body.mediaType ?? 'application/vnd.oci.image.manifest.v1+json';
    return { mediaType, bytes, manifest: { digest: res.headers.get('docker-content-digest') ?? '', config: body.config, layers: body.layers ?? [] } };
  }

  /**
   * Makes a blob of repository `from` part of `name` without sending its bytes (a cross-repository mount,
   * the registry links the blob it has). A registry that answers with an upload instead (202) has not got it.
   */
  async mountBlob(name: string, from: string, digest: string): Promise<void> {
    const access = [
      { type: 'repository', name, actions: ['pull', 'push'] },
      { type: 'repository', name: from, actions: ['pull'] },
    ];
    const res = await this.call(`/v2/${name}/blobs/uploads/?mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(from)}`, access, { method: 'POST' });
    if (res.status !== 201) throw new AppError(ErrorCode.REGISTRY_FAILED, '镜像仓库未能复制镜像层，请稍后重试');
  }

  /** Copies the image `from@digest` to `to:tag` inside the registry: blobs mounted, the manifest byte for byte. */
  async copyImage(from: string, digest: string, to: string, tag: string): Promise<string> {
    const { mediaType, bytes, manifest } = await this.rawManifest(from, digest);
    for (const blob of [manifest.config, ...manifest.layers]) await this.mountBlob(to, from, blob.digest);
    return this.putManifest(to, tag, mediaType, bytes);
  }

  /** Puts a manifest under a tag; answers the digest the registry computed. */
  async putManifest(name: string, tag: string, mediaType: string, bytes: Buffer): Promise<string> {
    const res = await this.call(`/v2/${name}/manifests/${tag}`, [{ type: 'repository', name, actions: ['pull', 'push'] }], {
      method: 'PUT',
      headers: { 'content-type': mediaType },
      body: new Uint8Array(bytes),
    });
    if (res.status !== 201) throw new AppError(ErrorCode.REGISTRY_FAILED);
    return res.headers.get('docker-content-digest') ?? '';
  }
}
