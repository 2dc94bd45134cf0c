import { useEffect } from 'react';
import { useMatches } from 'react-router';
import type { RouteHandle } from './route-table';

export const APP_NAME = '算力调度服务平台';

/** `<page> - 算力调度服务平台`, or the platform name alone where a route has no title of its own. */
export function pageTitle(page?: string): string {
  return page ? `${page} - ${APP_NAME}` : APP_NAME;
}

/**
 * Keeps the browser tab's title in step with the route: the deepest matched route's `title` from the
 * route table. Rendered once, by the root route.
 */
export function PageTitle() {
  const matches = useMatches();
  const title = [...matches].reverse().find((m) => (m.handle as RouteHandle | undefined)?.title)?.handle as RouteHandle | undefined;
  const text = pageTitle(title?.title);
  useEffect(() => {
    document.title = text;
  }, [text]);
  return null;
}
