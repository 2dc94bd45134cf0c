import { DEFAULT_ROUTE } from '@suanli/contracts';
import type { ComponentType } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { PageLoading } from '../shared/ui/page-loading';
import { AppRoot } from './app-root';
import { RouteError } from './route-error';
import { LAYOUT_ROUTES, menuKeyOf, PLAIN_ROUTES, REDIRECTS, type AppRoute, type PageGroup, type RouteHandle } from './route-table';

/** Where each route group's pages come from: one dynamic import, one chunk, per group. */
const PAGE_GROUPS = {
  training: () => import('../features/training/routes'),
  // The create form's fields (numbers, radios, folder pickers, the estimate) stay off the lists, the page after sign-in.
  trainingForm: () => import('../features/training/form-routes'),
  trainingDetail: () => import('../features/training/detail-routes'),
  storage: () => import('../features/storage/routes'),
  // The sign-in page alone: what every visitor loads first (budget in docs/performance.md).
  auth: () => import('../features/auth/routes'),
  // Register, find and change password: their forms (Segmented, Checkbox…) stay off the sign-in page.
  authForms: () => import('../features/auth/form-routes'),
  userCenter: () => import('../features/user-center/routes'),
  image: () => import('../features/image/routes'),
  expense: () => import('../features/expense/routes'),
  order: () => import('../features/order/routes'),
  keypair: () => import('../features/keypair/routes'),
  quantum: () => import('../features/quantum/routes'),
  messages: () => import('../features/messages/routes'),
  resource: () => import('../features/resource/routes'),
  workorder: () => import('../features/workorder/routes'),
  dataset: () => import('../features/dataset/routes'),
  team: () => import('../features/team/routes'),
  model: () => import('../features/model/routes'),
  pay: () => import('../features/pay/routes'),
  slurmTemplate: () => import('../features/slurm-template/routes'),
  // Its own group: xterm.js loads with this page only.
  eshell: () => import('../features/eshell/routes'),
  slurmTask: () => import('../features/slurm-task/routes'),
  publicData: () => import('../features/public-data/routes'),
  agreement: () => import('../features/agreement/routes'),
  admin: () => import('../features/admin/routes'),
} satisfies Record<PageGroup, () => Promise<Record<string, unknown>>>;

/** A route's page: the component its group exports under the table's name (the route tests load every one). */
async function loadPage(route: AppRoute): Promise<ComponentType> {
  const chunk: Record<string, unknown> = await PAGE_GROUPS[route.group]();
  const page = chunk[route.page];
  if (typeof page !== 'function') throw new Error(`${route.group} exports no page ${route.page}`);
  return page as ComponentType;
}

/** Each page gets its handle (menu key, tab title) and the Chinese error page with a retry. */
function toRouteObject(route: AppRoute): RouteObject {
  const handle: RouteHandle = { menuKey: menuKeyOf(route), title: route.title };
  return { path: route.path, handle, ErrorBoundary: RouteError, lazy: async () => ({ Component: await loadPage(route) }) };
}

export function buildRoutes(): RouteObject[] {
  return [
    {
      Component: AppRoot,
      HydrateFallback: PageLoading,
      // Catches what fails outside a page: a layout that does not load or render.
      ErrorBoundary: RouteError,
      children: [
        {
          path: '/',
          lazy: () => import('./layout/basic-layout').then((m) => ({ Component: m.BasicLayout })),
          ErrorBoundary: RouteError,
          children: [
            { index: true, element: <Navigate to={DEFAULT_ROUTE} replace /> },
            ...REDIRECTS.map((r) => ({ path: r.path, element: <Navigate to={r.to} replace /> })),
            ...LAYOUT_ROUTES.map(toRouteObject),
          ],
        },
        {
          lazy: () => import('./layout/plain-layout').then((m) => ({ Component: m.PlainLayout })),
          ErrorBoundary: RouteError,
          children: PLAIN_ROUTES.map(toRouteObject),
        },
        { path: '*', element: <Navigate to="/" replace /> },
      ],
    },
  ];
}
