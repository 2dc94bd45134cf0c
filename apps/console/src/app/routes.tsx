import { DEFAULT_ROUTE } from '@suanli/contracts';
import type { ComponentType } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { PageLoading } from '../shared/ui/page-loading';
import { AppRoot } from './app-root';
import { RouteError } from './route-error';

/**
 * THE route table (design/console.md): every route of the spec with its menu key and its page, each route
 * group loaded on demand as its own chunk. A feature owns `features/<group>/routes.tsx` and exports the page
 * components named here; groups still to be built export the shared “功能建设中” page.
 */
export interface AppRoute {
  path: string;
  /** The top-menu entry lit while this route is shown; defaults to the first path segment. */
  menuKey?: string;
  title: string;
  page: () => Promise<ComponentType>;
}

export interface RouteHandle {
  menuKey?: string;
  title: string;
}

const groups = {
  training: () => import('../features/training/routes'),
  storage: () => import('../features/storage/routes'),
  auth: () => import('../features/auth/routes'),
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
};

/** Routes inside the shared layout (header, top menu). They need a signed-in user. */
export const LAYOUT_ROUTES: AppRoute[] = [
  { path: '/training', title: '训练任务', page: () => groups.training().then((m) => m.TrainingListPage) },
  { path: '/training/develop', title: '交互式开发', page: () => groups.training().then((m) => m.TrainingDevelopPage) },
  { path: '/training/distributed', title: '分布式训练', page: () => groups.training().then((m) => m.TrainingDistributedPage) },
  { path: '/training/task/:type', title: '创建训练任务', page: () => groups.training().then((m) => m.TrainingTaskPage) },
  { path: '/training/detail/:type/:id', title: '训练任务详情', page: () => groups.training().then((m) => m.TrainingDetailPage) },

  { path: '/storage', title: '存储管理', page: () => groups.storage().then((m) => m.StoragePage) },
  { path: '/storage/detail', title: '文件详情', page: () => groups.storage().then((m) => m.StorageDetailPage) },

  { path: '/user-center', title: '个人信息', page: () => groups.userCenter().then((m) => m.UserCenterPage) },

  { path: '/image', title: '镜像', page: () => groups.image().then((m) => m.ImageListPage) },
  { path: '/image/form', title: '创建私有镜像', page: () => groups.image().then((m) => m.PrivateImageFormPage) },
  { path: '/image/detail/:id', title: '镜像详情', page: () => groups.image().then((m) => m.PrivateImageDetailPage) },

  { path: '/expense', title: '费用中心', page: () => groups.expense().then((m) => m.ExpensePage) },
  { path: '/order', title: '订单明细', page: () => groups.order().then((m) => m.OrderPage) },

  { path: '/keypair', title: '密钥对', page: () => groups.keypair().then((m) => m.KeypairListPage) },
  { path: '/keypair/create', title: '创建密钥对', page: () => groups.keypair().then((m) => m.KeypairCreatePage) },

  { path: '/quantum', title: '量子计算', page: () => groups.quantum().then((m) => m.QuantumPage) },
  { path: '/comming-soon/9', title: '敬请期待', page: () => groups.quantum().then((m) => m.ComingSoonPage) },

  { path: '/message', title: '消息中心', page: () => groups.messages().then((m) => m.MessagePage) },

  { path: '/resource', title: '资源概览', page: () => groups.resource().then((m) => m.ResourcePage) },
  { path: '/resource/dashboard', menuKey: 'resource', title: '资源大屏', page: () => groups.resource().then((m) => m.DashboardPage) },
  { path: '/dashboard', menuKey: 'resource', title: '资源大屏', page: () => groups.resource().then((m) => m.DashboardPage) },

  { path: '/workorder', title: '工单系统', page: () => groups.workorder().then((m) => m.WorkorderPage) },
  { path: '/workorder/detail/:id', title: '工单详情', page: () => groups.workorder().then((m) => m.WorkorderDetailPage) },

  { path: '/dataset', title: '数据集', page: () => groups.dataset().then((m) => m.DatasetIndexPage) },
  { path: '/dataset/detail/:id', title: '数据集详情', page: () => groups.dataset().then((m) => m.DatasetDetailPage) },

  { path: '/team', title: '团队管理', page: () => groups.team().then((m) => m.TeamListPage) },
  { path: '/team/detail/:id', title: '团队详情', page: () => groups.team().then((m) => m.TeamDetailPage) },

  { path: '/model', title: '模型', page: () => groups.model().then((m) => m.ModelIndexPage) },
  { path: '/model/detail/:id', title: '模型详情', page: () => groups.model().then((m) => m.ModelDetailPage) },

  { path: '/pay', title: '购买算力', page: () => groups.pay().then((m) => m.PayPage) },
  { path: '/pay/alipay', title: '支付宝支付', page: () => groups.pay().then((m) => m.AlipayPage) },

  { path: '/slurm-template', title: '任务模板', page: () => groups.slurmTemplate().then((m) => m.SlurmTemplatePage) },
  { path: '/slurm-template/form', title: '新建任务模板', page: () => groups.slurmTemplate().then((m) => m.SlurmTemplateFormPage) },
  { path: '/slurm-template/form/:id', title: '编辑任务模板', page: () => groups.slurmTemplate().then((m) => m.SlurmTemplateFormPage) },
  { path: '/slurm-template/eshell', menuKey: 'eshell', title: 'Shell工具', page: () => groups.eshell().then((m) => m.EshellPage) },

  { path: '/slurm-task', title: '任务管理', page: () => groups.slurmTask().then((m) => m.SlurmTaskListPage) },
  { path: '/slurm-task/task/:type', title: '提交作业', page: () => groups.slurmTask().then((m) => m.SlurmTaskFormPage) },
  { path: '/slurm-task/detail/:type/:id', title: '作业详情', page: () => groups.slurmTask().then((m) => m.SlurmTaskDetailPage) },

  { path: '/public-data/dataset', title: '公共资源大厅', page: () => groups.publicData().then((m) => m.PublicDataIndexPage) },
  { path: '/public-data/model', title: '公共资源大厅', page: () => groups.publicData().then((m) => m.PublicDataIndexPage) },
  { path: '/public-data/detail/:type/:id', title: '公共资源详情', page: () => groups.publicData().then((m) => m.PublicDataDetailPage) },
];

/** Routes on a plain page without the header and menu. */
export const PLAIN_ROUTES: AppRoute[] = [
  { path: '/login', title: '登录', page: () => groups.auth().then((m) => m.LoginPage) },
  { path: '/login/register', title: '注册', page: () => groups.auth().then((m) => m.RegisterPage) },
  { path: '/login/find', title: '找回密码', page: () => groups.auth().then((m) => m.FindPasswordPage) },
  { path: '/login/edit', title: '修改密码', page: () => groups.auth().then((m) => m.EditPasswordPage) },
  { path: '/user-agreement', title: '用户协议', page: () => groups.agreement().then((m) => m.UserAgreementPage) },
];

/** Paths that only forward somewhere else. */
export const REDIRECTS: { path: string; to: string }[] = [{ path: '/public-data', to: '/public-data/dataset' }];

/** The menu key of a route: explicit, else the first path segment (`/training/detail/x/1` → training). */
export function menuKeyOf(route: Pick<AppRoute, 'path' | 'menuKey'>): string {
  return route.menuKey ?? route.path.split('/')[1];
}

/** Each page gets its handle (menu key, tab title) and the Chinese error page with a retry. */
function toRouteObject(route: AppRoute): RouteObject {
  const handle: RouteHandle = { menuKey: menuKeyOf(route), title: route.title };
  return { path: route.path, handle, ErrorBoundary: RouteError, lazy: async () => ({ Component: await route.page() }) };
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
