import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Static, TSchema } from '@sinclair/typebox';
import {
  ErrorCode,
  routeUrl,
  STORAGE_FILE_SIZE_HEADER,
  STORAGE_GRANT_HEADER,
  StorageApi,
  StorageStreamApi,
  type AssetFileEntry,
  type AssetReadme,
  type Route,
  type RouteOutput,
  type RouteTypes,
  type StorageSnapshotLine,
} from '@suanli/contracts';
import { AppError } from '../errors';
import { envelopeData } from '../lib/envelope-client';
import type { CenterStorage, DiskAccess, HomeEntry, OpenedStream, Snapshot } from './center-storage';

/** How long a call may take to answer its headers (a listing or a manifest of a large version is a walk). */
const ANSWER_TIMEOUT_MS = 60_000;
const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });

export interface HttpCenterStorageOptions {
  centerId: string;
  /** For messages: `无法连接深圳算力分中心的文件服务`. */
  centerName: string;
  /** The center's `fileServiceUrl`. */
  url: string;
  /** The gateway's current storage grant for this center (StorageGrants.current). */
  grant: () => string;
}

/**
 * A center's storage through its file service (see CenterStorage): each operation is one call under
 * `{fileServiceUrl}/api/v1/storage/…` with the gateway's storage grant, which the file service resolves through
 * the gateway like a session (ADR 0016); the file service runs it with its own `LocalCenterStorage`, as the
 * account where its accounts are real. Refusals it answers (their envelope) pass through unchanged; a file
 * service that cannot be reached is 1403, one that does not answer 1404.
 */
export class HttpCenterStorage implements CenterStorage {
  readonly centerId: string;
  readonly transport = 'http' as const;
  private readonly base: string;
  /** Accounts whose home this process has made sure of: one call per account and process, not one per task. */
  private readonly homes = new Set<string>();

  constructor(private readonly opts: HttpCenterStorageOptions) {
    this.centerId = opts.centerId;
    this.base = opts.url.replace(/\/$/, '');
  }

  // ---- homes ----------------------------------------------------------------------------------------------

  async ensureHome(account: string) {
    if (this.homes.has(account)) return;
    await this.call(StorageApi.ensureHome, { account });
    this.homes.add(account);
  }

  async stat(account: string, userPath: string): Promise<HomeEntry | null> {
    return this.call(StorageApi.stat, { account, path: userPath });
  }

  async readFile(account: string, userPath: string, offset: number, limit: number) {
    const res = await this.get(StorageStreamApi.readFile, { account, path: userPath, offset: String(offset), limit: String(limit) });
    if (!res) return null;
    const parts: Buffer[] = [];
    for await (const b of res.stream) parts.push(b as Buffer);
    return { bytes: Buffer.concat(parts), size: res.size };
  }

  openFile(account: string, userPath: string): Promise<OpenedStream | null> {
    return this.get(StorageStreamApi.readFile, { account, path: userPath });
  }

  async writeFile(account: string, userPath: string, source: Readable) {
    const url = this.url(StorageStreamApi.writeFile, { account, path: userPath });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = this.module(url).request(url, { method: StorageStreamApi.writeFile.method, agent: this.agent(url), headers: { ...this.auth(), 'content-type': 'application/octet-stream' } }, resolve);
      req.once('error', (e) => reject(this.unreachable(e)));
      pipeline(source, req).catch((e: unknown) => {
        req.destroy();
        reject(e instanceof AppError ? e : this.unreachable(e as Error));
      });
    });
    await envelopeData(await toResponse(res), this.opts.centerName);
  }

  async makeDir(account: string, userPath: string) {
    await this.call(StorageApi.makeDir, { account, path: userPath });
  }

  // ---- the asset area -------------------------------------------------------------------------------------

  async assetDirs(): Promise<string[]> {
    return this.call(StorageApi.assetDirs);
  }

  async hasAssetDir(assetId: string): Promise<boolean> {
    return this.call(StorageApi.hasAssetDir, { assetId });
  }

  async applyAccess(assetId: string, access: DiskAccess, opts: { create?: boolean } = {}): Promise<boolean> {
    return this.call(StorageApi.applyAccess, { assetId, public: access.public, uids: access.uids, create: opts.create ?? false });
  }

  async closeAssetDir(assetId: string) {
    await this.call(StorageApi.closeAssetDir, { assetId });
  }

  async teamDirs(): Promise<string[]> {
    return this.call(StorageApi.teamDirs);
  }

  async applyTeamAccess(teamId: string, uids: number[], opts: { create?: boolean } = {}): Promise<boolean> {
    return this.call(StorageApi.applyTeamAccess, { teamId, uids, create: opts.create ?? false });
  }

  /** `StorageStreamApi.snapshot`, read line by line for as long as the copy runs. */
  async snapshot(account: string, userPath: string, assetId: string, versionId: string, onProgress: (copied: number, total: number) => void): Promise<Snapshot> {
    let res: Response;
    // A time limit on the answer's start only: the copy itself takes as long as the folder is large.
    const started = new AbortController();
    const timer = setTimeout(() => started.abort(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), ANSWER_TIMEOUT_MS);
    try {
      res = await fetch(this.base + routeUrl(StorageStreamApi.snapshot), {
        method: StorageStreamApi.snapshot.method,
        headers: { ...this.auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ account, path: userPath, assetId, versionId }),
        signal: AbortSignal.any([this.closing.signal, started.signal]),
      });
    } catch (e) {
      throw this.unreachable(started.signal.aborted ? (started.signal.reason as Error) : (e as Error));
    } finally {
      clearTimeout(timer);
    }
    if (!res.headers.get('content-type')?.startsWith('application/x-ndjson')) {
      await envelopeData(res, this.opts.centerName);
      throw this.badAnswer();
    }
    let rest = '';
    try {
      for await (const piece of res.body! as unknown as AsyncIterable<Uint8Array>) {
        rest += Buffer.from(piece).toString('utf8');
        let nl: number;
        while ((nl = rest.indexOf('\n')) >= 0) {
          const line = JSON.parse(rest.slice(0, nl)) as StorageSnapshotLine;
          rest = rest.slice(nl + 1);
          if (line.type === 'error') throw new AppError(line.code, line.message);
          if (line.type === 'done') return { sizeBytes: line.sizeBytes, fileCount: line.fileCount, digest: line.digest };
          onProgress(line.copied, line.total);
        }
      }
    } catch (e) {
      if (e instanceof AppError) throw e;
    }
    throw new AppError(ErrorCode.INTERNAL_FAILED, `与${this.opts.centerName}文件服务的连接中断`);
  }

  async versionManifest(assetId: string, versionId: string): Promise<string | null> {
    return (await this.call(StorageApi.versionManifest, { assetId, versionId })).manifest;
  }

  async adoptCopy(assetId: string, versionId: string, manifest: string) {
    await this.call(StorageApi.adoptCopy, { assetId, versionId, manifest });
  }

  async removeVersion(assetId: string, versionId: string) {
    await this.call(StorageApi.removeVersion, { assetId, versionId });
  }

  async removeAsset(assetId: string) {
    await this.call(StorageApi.removeAsset, { assetId });
  }

  async listVersion(assetId: string, versionId: string, userPath: string): Promise<AssetFileEntry[]> {
    return this.call(StorageApi.listVersion, { assetId, versionId, path: userPath });
  }

  async versionReadme(assetId: string, versionId: string): Promise<AssetReadme> {
    return this.call(StorageApi.versionReadme, { assetId, versionId });
  }

  async openVersionFile(assetId: string, versionId: string, userPath: string): Promise<OpenedStream> {
    const opened = await this.get(StorageStreamApi.versionFile, { assetId, versionId, path: userPath });
    // The file service answers a missing version file with its refusal (1301), never with null.
    if (!opened) throw this.badAnswer();
    return opened;
  }

  /**
   * Ends every call in flight and refuses new ones: a closing gateway must not wait for a file service that
   * itself waits for this gateway (its storage-grant check), or the close hangs (seen in remote-storage.int).
   */
  async close() {
    this.closing.abort(new AppError(ErrorCode.INTERNAL_FAILED, '网关正在关闭'));
    for (const req of this.requests) req.destroy(this.closing.signal.reason as Error);
  }

  private readonly closing = new AbortController();
  private readonly requests = new Set<http.ClientRequest>();

  // ---- the wire -------------------------------------------------------------------------------------------

  private auth() {
    return { [STORAGE_GRANT_HEADER]: this.opts.grant() };
  }

  private url(route: Route, query?: Record<string, string>) {
    const url = new URL(this.base + routeUrl(route));
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    return url;
  }

  private module(url: URL) {
    return url.protocol === 'https:' ? https : http;
  }

  private agent(url: URL) {
    return url.protocol === 'https:' ? httpsAgent : httpAgent;
  }

  /** One JSON call of `StorageApi`: its body (where the route takes one) in, the envelope's data out. */
  private async call<T extends RouteTypes>(route: Route<T>, ...[body]: T['body'] extends TSchema ? [body: Static<T['body']>] : []): Promise<RouteOutput<T>> {
    let res: Response;
    const json = body === undefined ? undefined : { 'content-type': 'application/json' };
    try {
      res = await fetch(this.base + routeUrl(route), {
        method: route.method,
        headers: { ...json, ...this.auth() },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(ANSWER_TIMEOUT_MS)]),
      });
    } catch (e) {
      throw this.unreachable(e as Error);
    }
    return (await envelopeData(res, this.opts.centerName)) as RouteOutput<T>;
  }

  /**
   * A file's bytes over `node:http` (a keep-alive agent, Node streams: undici's web streams cost more CPU per
   * GiB, as bench/sync found): the answer is bytes with the file's size in a header, or an envelope — null
   * for "no such file", or a refusal.
   */
  private get(route: Route, query: Record<string, string>): Promise<OpenedStream | null> {
    const url = this.url(route, query);
    return new Promise((resolve, reject) => {
      const req = this.module(url).get(url, { agent: this.agent(url), headers: this.auth(), timeout: ANSWER_TIMEOUT_MS }, (res) => {
        // The limit is on the answer's start: a reader that takes its time (a slow download) is not cut.
        req.setTimeout(0);
        const size = Number(res.headers[STORAGE_FILE_SIZE_HEADER]);
        if (res.statusCode !== 200 || !res.headers['content-type']?.startsWith('application/octet-stream') || !Number.isSafeInteger(size)) {
          toResponse(res)
            .then((answer) => envelopeData(answer, this.opts.centerName))
            .then((data) => (data === null ? resolve(null) : reject(this.badAnswer())), reject);
          return;
        }
        // A file service that dies mid-file ends the body with ECONNRESET / "aborted": the reader gets a 1403.
        const out = new PassThrough({ highWaterMark: 1024 * 1024 });
        const cut = () => out.destroy(new AppError(ErrorCode.INTERNAL_FAILED, `与${this.opts.centerName}文件服务的连接中断`));
        res.once('error', cut);
        res.once('aborted', cut);
        out.once('close', () => res.destroy());
        resolve({ size, stream: res.pipe(out) });
      });
      if (this.closing.signal.aborted) req.destroy(this.closing.signal.reason as Error);
      this.requests.add(req);
      req.once('close', () => this.requests.delete(req));
      req.once('timeout', () => req.destroy(new AppError(ErrorCode.INTERNAL_TIMEOUT, `${this.opts.centerName}的文件服务无应答`)));
      req.once('error', (e) => reject(e instanceof AppError ? e : this.unreachable(e)));
    });
  }

  private unreachable(e: Error): AppError {
    if (e.name === 'TimeoutError') return new AppError(ErrorCode.INTERNAL_TIMEOUT, `${this.opts.centerName}的文件服务无应答`);
    return new AppError(ErrorCode.INTERNAL_FAILED, `无法连接${this.opts.centerName}的文件服务（${e.message}）`);
  }

  private badAnswer() {
    return new AppError(ErrorCode.INTERNAL_BAD_RESPONSE, `${this.opts.centerName}的文件服务应答无效`);
  }
}

/** A Node answer as a fetch Response (for envelopeData). */
async function toResponse(res: IncomingMessage): Promise<Response> {
  const parts: Buffer[] = [];
  for await (const b of res) parts.push(b as Buffer);
  return new Response(Buffer.concat(parts), { status: res.statusCode, headers: { 'content-type': String(res.headers['content-type'] ?? '') } });
}
