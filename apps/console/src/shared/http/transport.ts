/**
 * The console's one HTTP transport (design/console.md "Errors"). Every call of the console — the gateway
 * client, a sub-center's file service, the chunked uploader, the file preview's streamed read — goes through
 * `send`, so the rules live in one place:
 *
 * - every call carries the client identification headers and, unless anonymous, the signed-in user's token;
 * - a call is bounded by a timeout (HTTP_TIMEOUT_MS, 120 s) and by the caller's own AbortSignal;
 * - the answer is decoded as the `{ message: { code, message }, data }` envelope: code 0 → data;
 *   10133 / 10157 / 10307 → the session-invalid handler (clear the user, go to login keeping the return URL);
 *   another code → the server's message; a transport failure → the code map, then the HTTP status map; a
 *   timeout → the timeout warning; anything else → '系统异常，请联系管理员！';
 * - a failure is toasted once (a warning for a timeout) unless the caller shows it itself (`silent`).
 *
 * The module is framework-free and knows nothing of the app: the app plugs its token source, headers,
 * session handler and toasts in with `configureTransport` at start-up (app/request.ts), which keeps
 * `shared/` independent of `app/`. The same code runs in Node (the upload benchmark, the uploader's tests).
 */
import {
  CLIENT_FAILURE_MESSAGE,
  CLIENT_TIMEOUT_MESSAGE,
  ERROR_MESSAGES,
  HTTP_STATUS_MESSAGES,
  HTTP_TIMEOUT_MS,
  SESSION_INVALID_CODES,
  type EnvelopeOf,
} from '@suanli/contracts';

export type RequestErrorKind = 'business' | 'session' | 'http' | 'timeout' | 'network' | 'aborted';

export class RequestError extends Error {
  readonly kind: RequestErrorKind;
  /** The envelope's `message.code` when the server answered one. */
  readonly code?: number;
  /** The HTTP status when the server answered at all. */
  readonly status?: number;

  constructor(kind: RequestErrorKind, message: string, code?: number, status?: number) {
    super(message);
    this.name = 'RequestError';
    this.kind = kind;
    this.code = code;
    this.status = status;
  }
}

export interface Notify {
  error(content: string): void;
  warning(content: string): void;
}

/** What the app plugs in; every field can also be overridden per client (tests, a second base URL). */
export interface TransportConfig {
  getToken: () => string | undefined;
  /** Headers every call carries (the console's Agent-Token). */
  headers: () => Record<string, string>;
  onSessionInvalid: (serverMessage: string, code: number) => void;
  notify: Notify;
  fetch?: typeof fetch;
  timeout: number;
}

const config: TransportConfig = {
  getToken: () => undefined,
  headers: () => ({}),
  onSessionInvalid: () => {},
  notify: { error: () => {}, warning: () => {} },
  timeout: HTTP_TIMEOUT_MS,
};

/** Returns what puts the patched fields back (a test that swaps the session handler restores the app's). */
export function configureTransport(patch: Partial<TransportConfig>): () => void {
  const before = Object.fromEntries(Object.keys(patch).map((k) => [k, config[k as keyof TransportConfig]]));
  Object.assign(config, patch);
  return () => void Object.assign(config, before);
}

export type QueryValue = string | number | boolean | null | undefined;

export interface SendOptions {
  method: string;
  /** Absolute, or relative to the page's origin. */
  url: string;
  params?: Record<string, QueryValue>;
  /** A plain object is sent as JSON; FormData, Blob, URLSearchParams and strings are sent as they are. */
  data?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the 120 s default for this call (for a streamed read it bounds the wait for the head). */
  timeout?: number;
  /** Leave out the `token` header (sign-in: a stale token must not travel with new credentials). */
  anonymous?: boolean;
  /** Send this token instead of the configured one (the benchmark, which has no signed-in app). */
  token?: string;
  /**
   * 'json' (default): resolve with the envelope. 'blob': resolve with the body when the server answered a
   * file. 'stream': resolve with the Response once its head arrived (the caller reads the body; the
   * caller's signal still cancels it). A JSON answer is always decoded as an envelope.
   */
  responseType?: 'json' | 'blob' | 'stream';
  /** Do not toast failures; the caller shows them (an inline check, the upload panel). Still rejects. */
  silent?: boolean;
}

export function buildUrl(base: string, path: string, params?: Record<string, QueryValue>): string {
  let url = /^https?:\/\//.test(path) ? path : base.replace(/\/+$/, '') + path;
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

function isEnvelope(value: unknown): value is EnvelopeOf<unknown> {
  const message = (value as { message?: { code?: unknown } } | null)?.message;
  return typeof message === 'object' && message !== null && typeof message.code === 'number';
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

/** The headers a call carries: client identification, then the token unless anonymous. */
export function authHeaders(options: { anonymous?: boolean; token?: string } = {}, overrides: Partial<TransportConfig> = {}): Record<string, string> {
  const headers = { ...(overrides.headers ?? config.headers)() };
  const token = options.anonymous ? undefined : (options.token ?? (overrides.getToken ?? config.getToken)());
  if (token) headers.token = token;
  return headers;
}

export function send(options: SendOptions & { responseType: 'stream' }, overrides?: Partial<TransportConfig>): Promise<Response>;
export function send(options: SendOptions & { responseType: 'blob' }, overrides?: Partial<TransportConfig>): Promise<Blob | EnvelopeOf<unknown>>;
export function send(options: SendOptions, overrides?: Partial<TransportConfig>): Promise<EnvelopeOf<unknown>>;
export async function send(options: SendOptions, overrides: Partial<TransportConfig> = {}): Promise<unknown> {
  const { method, signal, silent, data } = options;
  const notify = overrides.notify ?? config.notify;
  const fail = (error: RequestError): never => {
    if (!silent) notify[error.kind === 'timeout' ? 'warning' : 'error'](error.message);
    throw error;
  };

  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(options, overrides), ...options.headers };
  let body: BodyInit | undefined;
  if (data !== undefined && method !== 'GET') {
    if (isBodyInit(data)) body = data;
    else {
      body = JSON.stringify(data);
      headers['Content-Type'] = 'application/json';
    }
  }

  // One controller for the timeout and the caller's cancellation, told apart by this flag.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeout ?? overrides.timeout ?? config.timeout);
  const forwardAbort = () => controller.abort();
  if (signal?.aborted) controller.abort();
  else signal?.addEventListener('abort', forwardAbort, { once: true });
  let handedOver = false;

  try {
    let response: Response;
    let payload: unknown;
    try {
      const doFetch = overrides.fetch ?? config.fetch ?? globalThis.fetch.bind(globalThis);
      response = await doFetch(buildUrl('', options.url, options.params), { method, headers, body, signal: controller.signal });
      const contentType = response.headers.get('content-type') ?? '';
      if (response.ok && !contentType.includes('application/json')) {
        if (options.responseType === 'stream') {
          // The body is the caller's now: only its own signal may still cancel it, not the head timeout.
          clearTimeout(timer);
          handedOver = true;
          return response;
        }
        if (options.responseType === 'blob') return await response.blob();
      }
      payload = contentType.includes('json') ? await response.json().catch(() => undefined) : undefined;
    } catch {
      if (timedOut) return fail(new RequestError('timeout', CLIENT_TIMEOUT_MESSAGE));
      if (signal?.aborted) throw new RequestError('aborted', '请求已取消');
      return fail(new RequestError('network', CLIENT_FAILURE_MESSAGE));
    }

    const code = isEnvelope(payload) ? payload.message.code : undefined;
    const serverMessage = isEnvelope(payload) ? payload.message.message : '';

    if (code !== undefined && SESSION_INVALID_CODES.includes(code)) {
      const text = serverMessage || ERROR_MESSAGES[code];
      (overrides.onSessionInvalid ?? config.onSessionInvalid)(text, code);
      throw new RequestError('session', text, code, response.status);
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
      return fail(new RequestError('business', serverMessage || ERROR_MESSAGES[code] || CLIENT_FAILURE_MESSAGE, code, response.status));
    }
    return payload;
  } finally {
    clearTimeout(timer);
    if (!handedOver) signal?.removeEventListener('abort', forwardAbort);
  }
}
