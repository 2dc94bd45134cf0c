/**
 * The console's one way to call the API: a route descriptor from `@suanli/contracts` (method, base, path and
 * the types of what it takes and answers) and its input. The URL and both types come from the descriptor, so
 * they cannot drift from what the server registers (issue 18 item 4); `npm run lint` refuses a call that
 * builds a URL by hand anywhere else.
 */
import { routeUrl, type Route, type RouteInput, type RouteOutput, type RouteTypes } from '@suanli/contracts';
import type { RequestClient, RequestOptions } from './client';
import type { QueryValue } from './transport';

/** The input is optional exactly when the route takes nothing. */
export type CallArgs<T extends RouteTypes> = object extends RouteInput<T>
  ? [input?: RouteInput<T>, options?: RequestOptions]
  : [input: RouteInput<T>, options?: RequestOptions];

/**
 * Calls `route` on `client` (the gateway, or a sub-center's file service). A route marked `bytes` resolves with
 * the file as a Blob. A multipart upload (no body schema: the server reads the parts itself) passes its
 * FormData as `options.data`.
 */
export function callWith<T extends RouteTypes>(client: RequestClient, route: Route<T>, ...[input, options]: CallArgs<T>): Promise<RouteOutput<T>> {
  const { params, query, body } = (input ?? {}) as { params?: Record<string, string | number>; query?: Record<string, QueryValue>; body?: unknown };
  const method = route.method === 'DELETE' ? client.delete : client[route.method.toLowerCase() as 'get' | 'post' | 'put'];
  const sent: RequestOptions = { ...options };
  if (query !== undefined) sent.params = query;
  if (body !== undefined) sent.data = body;
  if (route.bytes) sent.responseType = 'blob';
  return method<RouteOutput<T>>(routeUrl(route, params), sent);
}
