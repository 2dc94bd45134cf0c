import { CONSOLE_BASE_PATH } from '@suanli/contracts';

/**
 * A bridge so code outside React (the request pipeline, the session handler) can navigate through the
 * router instead of reloading the page. The root route registers the router's navigate on mount; until
 * then a full page load is the safe fallback.
 */
type NavigateFn = (to: string, options?: { replace?: boolean }) => void;

const fullPageLoad: NavigateFn = (to, options) => {
  const url = CONSOLE_BASE_PATH + to;
  if (options?.replace) window.location.replace(url);
  else window.location.assign(url);
};
let navigateImpl: NavigateFn = fullPageLoad;

/** Returns what puts the previous navigate back (the root route unmounting: its router is gone). */
export function setNavigate(fn: NavigateFn): () => void {
  const previous = navigateImpl;
  navigateImpl = fn;
  return () => {
    if (navigateImpl === fn) navigateImpl = previous;
  };
}

/** Test helper: back to the full page load, as before any router mounted. */
export function resetNavigate(): void {
  navigateImpl = fullPageLoad;
}

export function navigateTo(to: string, options?: { replace?: boolean }): void {
  navigateImpl(to, options);
}

/** The current location relative to the app's base path, e.g. `/message?page=2`. */
export function currentAppPath(): string {
  const { pathname, search, hash } = window.location;
  const inApp = pathname === CONSOLE_BASE_PATH || pathname.startsWith(CONSOLE_BASE_PATH + '/')
    ? pathname.slice(CONSOLE_BASE_PATH.length) || '/'
    : pathname;
  return inApp + search + hash;
}

/** Pages a signed-out visitor uses to get a session; never a place to return to after signing in. */
const PUBLIC_AUTH_PATHS = ['/login', '/login/register', '/login/find'];

export function isPublicAuthPath(path: string): boolean {
  const pathname = path.split(/[?#]/)[0].replace(/\/+$/, '') || '/';
  return PUBLIC_AUTH_PATHS.includes(pathname);
}

/**
 * The login page's `redirect` parameter, accepted only when it is a path inside the app: anything else
 * (absolute URLs, protocol-relative `//host`, the sign-in pages themselves) falls back to the home route.
 */
export function safeRedirect(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (isPublicAuthPath(value)) return '/';
  return value;
}

export function loginPathFor(returnTo: string): string {
  const target = safeRedirect(returnTo);
  return target === '/' ? '/login' : `/login?redirect=${encodeURIComponent(target)}`;
}
