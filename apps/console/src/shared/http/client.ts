/**
 * A client bound to one base URL — the gateway (app/request.ts) or a sub-center's file service — with
 * verb methods over the one transport (./transport.ts). It adds nothing to the transport's rules; it only
 * joins the base URL and unwraps `data` from the envelope.
 */
import type { EnvelopeOf } from '@suanli/contracts';
import { buildUrl, send, type QueryValue, type SendOptions, type TransportConfig } from './transport';

export interface RequestOptions extends Omit<SendOptions, 'method' | 'url' | 'responseType' | 'token'> {
  /** Resolve with the file body (downloads) instead of parsing an envelope. */
  responseType?: 'json' | 'blob';
}

type FullOptions = RequestOptions & { full: true };

/** Resolves with `data`, or with the whole envelope when called with `{ full: true }`. */
export interface RequestMethod {
  <T>(url: string, options: FullOptions): Promise<EnvelopeOf<T>>;
  <T = unknown>(url: string, options?: RequestOptions & { full?: false }): Promise<T>;
}

export interface RequestClient {
  get: RequestMethod;
  post: RequestMethod;
  put: RequestMethod;
  delete: RequestMethod;
  /** `baseURL + url + query`, for links the browser opens itself and for streamed reads. */
  url(path: string, params?: Record<string, QueryValue>): string;
  /** The transport settings this client overrides (tests; none in the app). */
  overrides: Partial<TransportConfig>;
}

export interface ClientOptions extends Partial<TransportConfig> {
  /** Prepended to every path; '' is the console's own origin. */
  baseURL?: string;
}

export function createClient({ baseURL = '', ...overrides }: ClientOptions = {}): RequestClient {
  const method =
    (name: string): RequestMethod =>
    (async (path: string, options: RequestOptions & { full?: boolean } = {}) => {
      const { full, ...rest } = options;
      const answer = await send({ ...rest, method: name, url: buildUrl(baseURL, path) }, overrides);
      if (answer instanceof Blob) return answer;
      return full ? answer : answer.data;
    }) as RequestMethod;

  return {
    get: method('GET'),
    post: method('POST'),
    put: method('PUT'),
    delete: method('DELETE'),
    url: (path, params) => buildUrl(baseURL, path, params),
    overrides,
  };
}
