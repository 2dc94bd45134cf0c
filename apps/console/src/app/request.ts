import {
  CLIENT_FAILURE_MESSAGE,
  CLIENT_TIMEOUT_MESSAGE,
  ERROR_MESSAGES,
  HTTP_STATUS_MESSAGES,
  HTTP_TIMEOUT_MS,
  SESSION_INVALID_CODES,
  type EnvelopeOf,
} from '@suanli/contracts';
import { AGENT_TOKEN, API_BASE_URL } from './config';
import { toast, type Toast } from './feedback';
import { expireSession } from './session';
import { getToken } from './stores/user-store';

/**
 * The one request pipeline (design/console.md "Errors"): code 0 → data; a session-invalid code → clear the
 * user and go to login keeping the return URL; any other code → the server's message as an error toast and
 * a rejected promise; transport failures → the code map, then the HTTP status map; a timeout → the timeout
 * warning; anything else → the generic failure text. Callers never toast a failure themselves.
 */

export type RequestErrorKind = 'business' | 'session' | 'http' | 'timeout' | 'network' | 'aborted';

export class RequestError extends Error {
  readonly kind: RequestErrorKind;
  /** The envelope's `message.code` when the server answered one. */
  readonly code?: number;
  /** The HTTP status for transport-level failures. */
  readonly status?: number;

  constructor(kind: RequestErrorKind, message: string, code?: number, status?: number) {
    super(message);
    this.name = 'RequestError';
    this.kind = kind;
    this.code = code;
    this.status = status;
  }
}

type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  params?: Record<string, QueryValue>;
  /** A plain object is sent as JSON; FormData, Blob and strings are sent as they are. */
  data?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the 120 s default for this call. */
  timeout?: number;
  /** Leave out the `token` header (sign-in: a stale token must not travel with new credentials). */
  anonymous?: boolean;
  /** Resolve with the file body (downloads) instead of parsing an envelope. */
  responseType?: 'json' | 'blob';
  /** Do not toast failures; the caller shows them (e.g. an inline availability check). Still rejects. */
  silent?: boolean;
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
  /** The headers every call carries, for callers that must use XMLHttpRequest (upload progress). */
  authHeaders(): Record<string, string>;
  /** `baseURL + url + query`, for links the browser opens itself (downloads in a new window). */
  url(path: string, params?: Record<string, QueryValue>): string;
}

export interface RequestDeps {
  /** Prepended to every path; '' is the console's own origin, a file service passes its `fileServiceUrl`. */
  baseURL?: string;
  getToken?: () => string | undefined;
  notify?: Pick<Toast, 'error' | 'warning'>;
  onSessionInvalid?: (serverMessage: string, code: number) => void;
  fetch?: typeof fetch;
  timeout?: number;
}

function isEnvelope(value: unknown): value is EnvelopeOf<unknown> {
  const message = (value as { message?: { code?: unknown } } | null)?.message;
  return typeof message === 'object' && message !== null && typeof message.code === 'number';
}

function buildUrl(base: string, path: string, params?: Record<string, QueryValue>): string {
  const trimmedBase = base.replace(/\/+$/, '');
  let url = /^https?:\/\//.test(path) ? path : trimmedBase + path;
  if (params) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) search.append(key, String(value));
    }
    const query = search.toString();
    if (query) url += (url.includes('?') ? '&' : '?') + query;
  }
  return url;
}

function isBodyInit(data: unknown): data is BodyInit {
  return (
    typeof data === 'string' ||
    data instanceof FormData ||
    data instanceof Blob ||
    data instanceof URLSearchParams ||
    data instanceof ArrayBuffer
  );
}

/** A pipeline bound to one base URL: the gateway (default) or a sub-center's file service. */
export function createRequest(deps: RequestDeps = {}): RequestClient {
  const baseURL = deps.baseURL ?? API_BASE_URL;
  const readToken = deps.getToken ?? getToken;
  const notify = deps.notify ?? toast;
  const onSessionInvalid = deps.onSessionInvalid ?? expireSession;
  const defaultTimeout = deps.timeout ?? HTTP_TIMEOUT_MS;

  function authHeaders(anonymous = false): Record<string, string> {
    const headers: Record<string, string> = { 'Agent-Token': `Bearer ${AGENT_TOKEN}` };
    const token = anonymous ? undefined : readToken();
    if (token) headers.token = token;
    return headers;
  }

  async function send(method: string, path: string, options: RequestOptions & { full?: boolean } = {}): Promise<unknown> {
    const { params, data, signal, silent, full } = options;
    const fail = (error: RequestError, level: 'error' | 'warning' = 'error'): never => {
      if (!silent) notify[level](error.message);
      throw error;
    };

    const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(options.anonymous), ...options.headers };
    let body: BodyInit | undefined;
    if (data !== undefined && method !== 'GET') {
      if (isBodyInit(data)) body = data;
      else {
        body = JSON.stringify(data);
        headers['Content-Type'] = 'application/json';
      }
    }

    // One controller for both the timeout and the caller's own cancellation, told apart by this flag.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeout ?? defaultTimeout);
    const forwardAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener('abort', forwardAbort, { once: true });

    try {
      let response: Response;
      let payload: unknown;
      try {
        response = await (deps.fetch ?? globalThis.fetch)(buildUrl(baseURL, path, params), {
          method,
          headers,
          body,
          signal: controller.signal,
        });
        const contentType = response.headers.get('content-type') ?? '';
        if (options.responseType === 'blob' && response.ok && !contentType.includes('application/json')) {
          return await response.blob();
        }
        payload = contentType.includes('json') ? await response.json().catch(() => undefined) : undefined;
      } catch {
        if (timedOut) return fail(new RequestError('timeout', CLIENT_TIMEOUT_MESSAGE), 'warning');
        if (signal?.aborted) throw new RequestError('aborted', '请求已取消');
        return fail(new RequestError('network', CLIENT_FAILURE_MESSAGE));
      }

      const code = isEnvelope(payload) ? payload.message.code : undefined;
      const serverMessage = isEnvelope(payload) ? payload.message.message : '';

      if (code !== undefined && SESSION_INVALID_CODES.includes(code)) {
        onSessionInvalid(serverMessage || ERROR_MESSAGES[code], code);
        throw new RequestError('session', serverMessage || ERROR_MESSAGES[code], code, response.status);
      }
      if (!response.ok) {
        const text =
          (code !== undefined && code !== 0 ? ERROR_MESSAGES[code] : undefined) ??
          HTTP_STATUS_MESSAGES[response.status] ??
          (serverMessage || CLIENT_FAILURE_MESSAGE);
        return fail(new RequestError('http', text, code, response.status));
      }
      if (code === undefined) return fail(new RequestError('http', CLIENT_FAILURE_MESSAGE, undefined, response.status));
      if (code !== 0) {
        return fail(new RequestError('business', serverMessage || ERROR_MESSAGES[code] || CLIENT_FAILURE_MESSAGE, code));
      }
      return full ? payload : (payload as EnvelopeOf<unknown>).data;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  const method = (name: string): RequestMethod =>
    ((url: string, options?: RequestOptions & { full?: boolean }) => send(name, url, options)) as RequestMethod;

  return {
    get: method('GET'),
    post: method('POST'),
    put: method('PUT'),
    delete: method('DELETE'),
    authHeaders: () => authHeaders(),
    url: (path, params) => buildUrl(baseURL, path, params),
  };
}

/** The gateway client every feature uses. */
export const request = createRequest();
