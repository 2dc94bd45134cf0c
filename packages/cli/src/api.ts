import {
  CLIENT_FAILURE_MESSAGE,
  CLIENT_TIMEOUT_MESSAGE,
  ERROR_MESSAGES,
  HTTP_STATUS_MESSAGES,
  HTTP_TIMEOUT_MS,
  SESSION_INVALID_CODES,
  routeUrl,
  type Route,
  type RouteInput,
  type RouteOutput,
  type RouteTypes,
} from '@suanli/contracts';

/** A failure the user reads: the server's Chinese message (or the contract's text for a transport failure). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code?: number,
    /** Process exit status (1 unless a command says otherwise, e.g. a task's own exit code). */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Target {
  /** The gateway's origin, `http://host:port`, or a sub-center's file service (`fileServiceUrl`). */
  base: string;
  token?: string;
}

type Input = { params?: Record<string, string | number>; query?: Record<string, unknown>; body?: unknown };

/** Where `input` (of the route's types) goes: the URL from the descriptor, the query string, the JSON body. */
export function urlOf(target: Target, route: Route, input: Input = {}): string {
  const url = new URL(target.base.replace(/\/+$/, '') + routeUrl(route, input.params));
  for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined && v !== null) url.searchParams.append(k, String(v));
  return url.toString();
}

export function headersOf(target: Target): Record<string, string> {
  return { accept: 'application/json', ...(target.token ? { token: target.token } : {}) };
}

/**
 * Calls a route of the contracts package — the same descriptors the console and the server use, so the CLI
 * cannot drift from the API. The answer is the `{message, data}` envelope: code 0 → data; anything else is
 * a CliError carrying the server's own message (it names the field of a 1005, the reason of a refusal). A
 * session that ended says so and how to sign in again.
 */
export async function call<T extends RouteTypes>(target: Target, route: Route<T>, input?: RouteInput<T>, init: { timeoutMs?: number } = {}): Promise<RouteOutput<T>> {
  const { body } = (input ?? {}) as Input;
  const headers = headersOf(target);
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  let payload: unknown;
  try {
    res = await fetch(urlOf(target, route, input as Input), {
      method: route.method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(init.timeoutMs ?? HTTP_TIMEOUT_MS),
    });
    payload = (res.headers.get('content-type') ?? '').includes('json') ? await res.json().catch(() => undefined) : undefined;
  } catch (err) {
    if ((err as { name?: string }).name === 'TimeoutError') throw new CliError(CLIENT_TIMEOUT_MESSAGE);
    throw new CliError(`无法连接到服务器 ${target.base}：${CLIENT_FAILURE_MESSAGE}`);
  }
  return envelopeData(res, payload) as RouteOutput<T>;
}

export function envelopeData(res: Response, payload: unknown): unknown {
  const message = (payload as { message?: { code?: unknown; message?: unknown } } | undefined)?.message;
  const code = typeof message?.code === 'number' ? message.code : undefined;
  const text = typeof message?.message === 'string' ? message.message : '';
  if (code === 0) return (payload as { data: unknown }).data;
  if (code !== undefined && SESSION_INVALID_CODES.includes(code)) {
    throw new CliError(`${text || ERROR_MESSAGES[code]}（请先执行 suanli login 重新登录）`, code);
  }
  if (code !== undefined) throw new CliError(text || ERROR_MESSAGES[code] || CLIENT_FAILURE_MESSAGE, code);
  throw new CliError(HTTP_STATUS_MESSAGES[res.status] ?? CLIENT_FAILURE_MESSAGE);
}
