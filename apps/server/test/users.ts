import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { UserInfo } from '@suanli/contracts';
import { encryptWith } from './rsa';

export { encryptWith };

/**
 * Test helpers for anything that needs a signed-in user: the real flow (code from the outbox → register →
 * login with an RSA-encrypted password), so other modules' tests exercise what the console does.
 */

export const USER_API = '/gateway/user/api/v1';

/** `{message, data}` of an inject response. */
function parse<T = any>(res: { body: string }): { message: { code: number; message: string }; data: T } {
  return JSON.parse(res.body);
}

/** The served public key (PEM SPKI). */
export async function rsaPublicKey(app: FastifyInstance): Promise<string> {
  const res = parse<{ publicKey: string }>(await app.inject({ method: 'GET', url: `${USER_API}/user/rsa-key` }));
  return res.data.publicKey;
}

export async function encryptPassword(app: FastifyInstance, password: string): Promise<string> {
  return encryptWith(await rsaPublicKey(app), password);
}

interface OutboxLine {
  time: number;
  target: string;
  scene: string | null;
  code: string | null;
  subject: string;
  text: string;
}

export function readOutbox(app: FastifyInstance): OutboxLine[] {
  const file = path.join(app.ctx.config.dataDir, 'outbox', 'messages.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OutboxLine);
}

/**
 * The newest code sent to `target` (optionally of one scene). Waits up to `timeoutMs` because some scenes
 * (password reset) send in the background after answering. Throws if none arrives.
 */
export async function readOutboxCode(app: FastifyInstance, target: string, scene?: string, timeoutMs = 2000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = readOutbox(app)
      .filter((l) => l.target === target && (!scene || l.scene === scene))
      .at(-1);
    if (hit?.code) return hit.code;
    if (Date.now() > deadline) throw new Error(`no code in the outbox for ${target}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function requestCode(app: FastifyInstance, scene: string, target: string, token?: string) {
  return parse(await app.inject({ method: 'POST', url: `${USER_API}/user/code`, headers: token ? { token } : {}, payload: { scene, target } }));
}

export async function login(app: FastifyInstance, account: string, password: string): Promise<{ token: string; user: UserInfo }> {
  const res = parse<UserInfo>(
    await app.inject({ method: 'POST', url: `${USER_API}/user/login`, payload: { account, password: await encryptPassword(app, password) } }),
  );
  if (res.message.code !== 0) throw new Error(`login failed: ${res.message.code} ${res.message.message}`);
  return { token: res.data.token!, user: res.data };
}

let seq = 0;

/**
 * Registers a fresh user through the real flow (register code by e-mail, read from the outbox) and logs in.
 * Each call uses a new e-mail address, so the per-target code limits never get in the way.
 */
export async function registerAndLogin(
  app: FastifyInstance,
  opts: { username?: string; password?: string } = {},
): Promise<{ token: string; user: UserInfo; password: string }> {
  const username = opts.username ?? `u_${randomBytes(4).toString('hex')}${seq++}`;
  const password = opts.password ?? 'Passw0rd-test';
  const email = `${username.toLowerCase()}.${randomBytes(3).toString('hex')}@test.local`;
  const sent = await requestCode(app, 'register', email);
  if (sent.message.code !== 0) throw new Error(`code failed: ${sent.message.code} ${sent.message.message}`);
  const code = await readOutboxCode(app, email, 'register');
  const reg = parse(
    await app.inject({
      method: 'POST',
      url: `${USER_API}/user/register`,
      payload: { username, password: await encryptPassword(app, password), email, code, agreement: true },
    }),
  );
  if (reg.message.code !== 0) throw new Error(`register failed: ${reg.message.code} ${reg.message.message}`);
  const { token, user } = await login(app, username, password);
  return { token, user, password };
}

/** One JSON call through inject: `{message, data}` plus the HTTP status. */
export async function call<T = any>(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  opts: { token?: string; payload?: unknown; query?: Record<string, string> } = {},
): Promise<{ status: number; message: { code: number; message: string }; data: T }> {
  const res = await app.inject({
    method,
    url: url.startsWith('/') ? url : `${USER_API}/${url}`,
    headers: opts.token ? { token: opts.token } : {},
    payload: opts.payload as any,
    query: opts.query,
  });
  return { status: res.statusCode, ...parse<T>(res) };
}

