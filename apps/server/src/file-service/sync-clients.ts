import http from 'node:http';
import https from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import { ErrorCode, routeUrl, SYNC_GRANT_HEADER, SyncFileApi, SyncFileStreamApi, type Route, type SyncHash, type SyncManifest, type SyncPullLine } from '@suanli/contracts';
import { AppError, forbidden } from '../errors';
import { envelopeData } from '../lib/envelope-client';
import type { FileIdentity } from './identity';
import type { SyncReceiver, SyncService, SyncSource } from './sync.service';

/** How long the source may take to answer a call's headers (a manifest of a large folder is a walk). */
const ANSWER_TIMEOUT_MS = 60_000;
const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });
const cut = () => new AppError(ErrorCode.INTERNAL_FAILED, '与源分中心文件服务的连接中断');

/**
 * The source file service over HTTP (`SyncFileApi`, `SyncFileStreamApi.file`), with the job's grant. A
 * connection failure is 1403 and a silent source 1404: the gateway retries those; any refusal the source
 * answers (its envelope) passes through unchanged.
 */
export class HttpSyncSource implements SyncSource {
  private readonly base: string;

  constructor(
    fileServiceUrl: string,
    private readonly grant: string,
  ) {
    this.base = fileServiceUrl.replace(/\/$/, '');
  }

  async manifest(signal: AbortSignal): Promise<SyncManifest> {
    return (await envelopeData(await this.call(SyncFileApi.manifest, '', signal), '源分中心')) as SyncManifest;
  }

  async hash(rel: string, signal: AbortSignal): Promise<string> {
    return ((await envelopeData(await this.call(SyncFileApi.hash, `?path=${encodeURIComponent(rel)}`, signal), '源分中心')) as SyncHash).sha256;
  }

  /**
   * A range over `node:http` with a keep-alive agent, not fetch: undici's web streams cost about a CPU-second
   * per GiB more (bench/sync, as bench/upload found for the uploader), and the answer goes straight into the
   * staging file as a Node stream.
   */
  read(rel: string, start: number, end: number, signal: AbortSignal): Promise<Readable> {
    const url = new URL(`${this.base}${routeUrl(SyncFileStreamApi.file)}?path=${encodeURIComponent(rel)}`);
    return new Promise((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).get(
        url,
        { agent: url.protocol === 'https:' ? httpsAgent : httpAgent, headers: { range: `bytes=${start}-${end}`, [SYNC_GRANT_HEADER]: this.grant }, signal, timeout: ANSWER_TIMEOUT_MS },
        (res) => {
          if (res.statusCode !== 206 || res.headers['content-range']?.startsWith(`bytes ${start}-${end}/`) !== true) {
            const parts: Buffer[] = [];
            res.on('data', (b: Buffer) => parts.push(b));
            res.on('end', () => {
              const answer = new Response(Buffer.concat(parts), { status: res.statusCode });
              envelopeData(answer, '源分中心').then(
                () => reject(new AppError(ErrorCode.INTERNAL_BAD_RESPONSE, '源分中心的文件服务没有返回请求的范围')),
                reject,
              );
            });
            res.on('error', () => reject(cut()));
            return;
          }
          // A source that dies mid-range ends the body with ECONNRESET / "aborted": made a 1403, which the gateway retries.
          const out = new PassThrough({ highWaterMark: 1024 * 1024 });
          res.once('error', () => out.destroy(signal.aborted ? signal.reason : cut()));
          res.once('aborted', () => out.destroy(signal.aborted ? signal.reason : cut()));
          out.once('close', () => res.destroy());
          resolve(res.pipe(out));
        },
      );
      req.once('timeout', () => req.destroy(new AppError(ErrorCode.INTERNAL_TIMEOUT, '源分中心的文件服务无应答')));
      req.once('error', (e) => {
        if (signal.aborted) reject(signal.reason);
        else if (e instanceof AppError) reject(e);
        else reject(new AppError(ErrorCode.INTERNAL_FAILED, `无法连接源分中心的文件服务（${e.message}）`));
      });
    });
  }

  private async call(route: Route, query: string, signal: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
    try {
      const res = await fetch(this.base + routeUrl(route) + query, { method: route.method, headers: { [SYNC_GRANT_HEADER]: this.grant }, signal: AbortSignal.any([signal, timeout]) });
      return res;
    } catch (e) {
      signal.throwIfAborted();
      if (timeout.aborted) throw new AppError(ErrorCode.INTERNAL_TIMEOUT, '源分中心的文件服务无应答');
      throw new AppError(ErrorCode.INTERNAL_FAILED, `无法连接源分中心的文件服务（${(e as Error).message}）`);
    }
  }
}

/**
 * The source file service in this process (the embedded default serves every local center from the
 * gateway): the same grant check and the same calls, without the HTTP hop.
 */
export class LocalSyncSource implements SyncSource {
  constructor(
    private readonly service: SyncService,
    private readonly identity: FileIdentity,
    private readonly grant: string,
  ) {}

  private async granted() {
    const g = await this.identity.resolveGrant(this.grant);
    if (g.grant.role !== 'source') throw forbidden();
    return g;
  }

  async manifest(): Promise<SyncManifest> {
    const { user, grant } = await this.granted();
    return this.service.manifest(user, grant);
  }

  async hash(rel: string): Promise<string> {
    const { user, grant } = await this.granted();
    return this.service.hash(user, grant, rel);
  }

  async read(rel: string, start: number, end: number): Promise<Readable> {
    const { user, grant } = await this.granted();
    const file = await this.service.open(user, grant, rel);
    if (end >= file.stat.size) {
      await file.close();
      throw new AppError(ErrorCode.SYNC_FAILED, `跨中心同步失败：源文件在同步期间发生了变化（${rel}），请重新同步`);
    }
    const body = file.read(start, end);
    void file.close();
    return body;
  }
}

/**
 * The receiving file service over HTTP: `SyncFileStreamApi.pull` read line by line for as long as the copy
 * runs, `SyncFileApi.discard` to discard. A connection that fails or ends without a last line is 1403 (retried).
 */
export class HttpSyncReceiver implements SyncReceiver {
  private readonly base: string;

  constructor(fileServiceUrl: string) {
    this.base = fileServiceUrl.replace(/\/$/, '');
  }

  async pull(grant: string, onProgress: Parameters<SyncReceiver['pull']>[1], signal: AbortSignal): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.base + routeUrl(SyncFileStreamApi.pull), { method: SyncFileStreamApi.pull.method, headers: { [SYNC_GRANT_HEADER]: grant }, signal });
    } catch (e) {
      signal.throwIfAborted();
      throw new AppError(ErrorCode.INTERNAL_FAILED, `无法连接目标分中心的文件服务（${(e as Error).message}）`);
    }
    if (!res.headers.get('content-type')?.startsWith('application/x-ndjson')) {
      await envelopeData(res, '目标分中心');
      throw new AppError(ErrorCode.INTERNAL_BAD_RESPONSE, '目标分中心的文件服务应答无效');
    }
    let rest = '';
    try {
      for await (const piece of res.body! as unknown as AsyncIterable<Uint8Array>) {
        rest += Buffer.from(piece).toString('utf8');
        let nl: number;
        while ((nl = rest.indexOf('\n')) >= 0) {
          const line = JSON.parse(rest.slice(0, nl)) as SyncPullLine;
          rest = rest.slice(nl + 1);
          if (line.type === 'error') throw new AppError(line.code, line.message);
          onProgress(line);
          if (line.type === 'done') return;
        }
      }
    } catch (e) {
      if (e instanceof AppError) throw e;
      signal.throwIfAborted();
    }
    throw new AppError(ErrorCode.INTERNAL_FAILED, '与目标分中心文件服务的连接中断');
  }

  async discard(grant: string): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.base + routeUrl(SyncFileApi.discard), { method: SyncFileApi.discard.method, headers: { [SYNC_GRANT_HEADER]: grant }, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    } catch (e) {
      throw new AppError(ErrorCode.INTERNAL_FAILED, `无法连接目标分中心的文件服务（${(e as Error).message}）`);
    }
    await envelopeData(res, '目标分中心');
  }
}
