import type { BrowserContextOptions, Page } from 'playwright-core';
import { USER_STORAGE_KEY } from '@suanli/contracts';
import { login, registerAndLogin } from '../../apps/server/test/users';
import type { E2eEnv } from './env';

/** A fresh account created through the real register flow (outbox code, RSA-encrypted password). */
export async function createUser(env: E2eEnv, opts: { username?: string; password?: string } = {}) {
  return registerAndLogin(env.app, opts);
}

/** A fresh account with the operator role (operators review publications, answer work orders, confirm transfers). */
export async function createOperator(env: E2eEnv) {
  const op = await createUser(env);
  await env.app.ctx.access.grant(op.user.id, 'operator');
  return op;
}

/** Signs in through the login page, the way a person does, and waits for the shell. */
export async function signIn(page: Page, account: string, password: string) {
  await page.goto('/console/login');
  await page.getByTestId('login-account').fill(account);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('app-header').waitFor();
}

/**
 * A signed-in browser state for a journey that does not test the sign-in form: the gateway's login (the call
 * the form makes, RSA-encrypted password) and the user info the login page keeps in localStorage
 * (`USER_STORAGE_KEY`). Pass it as `storageState` of a new context: its first page load is signed in, as after
 * `signIn` and a reload.
 */
export async function sessionState(env: E2eEnv, account: string, password: string): Promise<NonNullable<BrowserContextOptions['storageState']>> {
  const { user } = await login(env.app, account, password);
  return { cookies: [], origins: [{ origin: env.baseUrl, localStorage: [{ name: USER_STORAGE_KEY, value: JSON.stringify(user) }] }] };
}

/**
 * A new page (as `env.newPage`) signed in as `account` from a session the gateway issued (`sessionState`), for
 * a journey that does not test the sign-in form. It opens on about:blank and its first page load is signed in,
 * where `signIn` first loads the login page and then 训练任务 — two page loads of CPU in a tier that is
 * CPU-bound (issue 26). The form is still used where signing in belongs to the journey: platform.e2e (the
 * header after a sign-in; signing in again after logging out), admin.e2e (the operator made by the server
 * command; the disabled user refused, then let in again), reload.e2e, deploy.e2e (behind nginx),
 * develop-slurm.e2e and the walk's probe (the sign-in page's console errors).
 */
export async function signedInPage(env: E2eEnv, account: string, password: string) {
  return env.newPage({ storageState: await sessionState(env, account, password) });
}

/** The pages `userPage` keeps: per file (its env) and account. */
const kept = new WeakMap<E2eEnv, Map<string, Promise<Page>>>();

/**
 * The file's signed-in page of `account`: one browser context per user and file (issue 26). The first call
 * opens it as `signedInPage` does; a later journey of the file gets the same page back at 1440 × 900 and starts
 * with its own `goto` — a full page load, so nothing of the earlier journey's page carries over, but in a
 * renderer that has already run the console (its scripts cached and compiled): session 19 measured a new
 * context's first console page at 4.3–5.3 CPU-s of Chromium and a later load in the same page at 1.1–1.4. The
 * context's cookies and localStorage do carry over, as in a person's browser from one task to the next; a
 * journey that needs a browser without them (a second session, another device) opens `signedInPage`. The
 * pages close with the file's browser (`env.close`), so a journey does not close them.
 */
export async function userPage(env: E2eEnv, account: string, password: string): Promise<Page> {
  let byAccount = kept.get(env);
  if (!byAccount) kept.set(env, (byAccount = new Map()));
  let opened = byAccount.get(account);
  if (!opened || (await opened).isClosed()) byAccount.set(account, (opened = signedInPage(env, account, password).then(({ page }) => page)));
  const page = await opened;
  await page.setViewportSize({ width: 1440, height: 900 });
  return page;
}
