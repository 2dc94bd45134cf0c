/**
 * Plugs the app into the one transport (shared/http/transport.ts): the signed-in user's token, the client
 * identification header, the session-expiry path and the toasts. Every call of the console — this gateway
 * client, the file services, the uploader — then follows the same rules (design/console.md "Errors").
 * Imported first by main.tsx; every feature that calls the gateway imports it as well.
 */
import { configureTransport } from '../shared/http/transport';
import type { Route, RouteOutput, RouteTypes } from '@suanli/contracts';
import { callWith, type CallArgs } from '../shared/http/call';
import { createClient } from '../shared/http/client';
import { AGENT_TOKEN, API_BASE_URL } from './config';
import { toast } from './feedback';
import { expireSession } from './session';
import { getToken } from './stores/user-store';

configureTransport({
  getToken,
  headers: () => ({ 'Agent-Token': `Bearer ${AGENT_TOKEN}` }),
  onSessionInvalid: (message, code) => expireSession(message, code),
  notify: toast,
});

/** The gateway client every feature uses. */
export const request = createClient({ baseURL: API_BASE_URL });

export { createClient, type RequestClient, type RequestOptions } from '../shared/http/client';
export { RequestError, type RequestErrorKind } from '../shared/http/transport';

/** Calls a route descriptor on the gateway (shared/http/call.ts): `call(MessageApi.view, { body: { ids } })`. */
export function call<T extends RouteTypes>(route: Route<T>, ...args: CallArgs<T>): Promise<RouteOutput<T>> {
  return callWith(request, route, ...args);
}
