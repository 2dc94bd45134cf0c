/**
 * THE route table (design/console.md): every route of the spec with its menu key and its page, each route
 * group loaded on demand as its own chunk. A feature owns `features/<group>/routes.tsx` and exports the page
 * components named here. Plain data (routes.tsx
 * loads the pages), so that the e2e journeys can walk every route without compiling the console.
 */
export interface AppRoute {
  path: string;
  /** The top-menu entry lit while this route is shown; defaults to the first path segment. */
  menuKey?: string;
  title: string;
  /** The route group (lazy chunk, `PAGE_GROUPS` in routes.tsx) and the page component it exports. */
  group: PageGroup;
  page: string;
}

/** The route groups, each its own chunk. */
export type PageGroup =
  | 'training'
  | 'trainingForm'
  | 'trainingDetail'
  | 'storage'
  | 'auth'
  | 'authForms'
  | 'userCenter'
  | 'image'
  | 'expense'
  | 'order'
  | 'keypair'
  | 'quantum'
  | 'messages'
  | 'resource'
  | 'workorder'
  | 'dataset'
  | 'team'
  | 'model'
  | 'pay'
  | 'slurmTemplate'
  | 'eshell'
  | 'slurmTask'
  | 'publicData'
  | 'agreement'
  | 'admin';

export interface RouteHandle {
  menuKey?: string;
  title: string;
}


/** Routes inside the shared layout (header, top menu). They need a signed-in user. */
export const LAYOUT_ROUTES: AppRoute[] = [
  { path: '/training', title: '训练任务', group: 'training', page: 'TrainingListPage' },
  { path: '/training/develop', title: '交互式开发', group: 'training', page: 'TrainingDevelopPage' },
  { path: '/training/distributed', title: '分布式训练', group: 'training', page: 'TrainingDistributedPage' },
  { path: '/training/task/:type', title: '创建训练任务', group: 'trainingForm', page: 'TrainingTaskPage' },
  { path: '/training/detail/:type/:id', title: '训练任务详情', group: 'trainingDetail', page: 'TrainingDetailPage' },
  { path: '/training/compare', title: '任务对比', group: 'trainingDetail', page: 'TrainingComparePage' },

  { path: '/storage', title: '存储管理', group: 'storage', page: 'StoragePage' },
  { path: '/storage/detail', title: '文件详情', group: 'storage', page: 'StorageDetailPage' },

  { path: '/user-center', title: '个人信息', group: 'userCenter', page: 'UserCenterPage' },

  { path: '/image', title: '镜像', group: 'image', page: 'ImageListPage' },
  { path: '/image/form', title: '创建私有镜像', group: 'image', page: 'PrivateImageFormPage' },
  { path: '/image/detail/:id', title: '镜像详情', group: 'image', page: 'PrivateImageDetailPage' },

  { path: '/expense', title: '费用明细', group: 'expense', page: 'ExpensePage' },
  { path: '/order', title: '订单明细', group: 'order', page: 'OrderPage' },

  { path: '/keypair', title: '密钥对', group: 'keypair', page: 'KeypairListPage' },
  { path: '/keypair/create', title: '创建密钥对', group: 'keypair', page: 'KeypairCreatePage' },

  { path: '/quantum', title: '量子计算云平台', group: 'quantum', page: 'QuantumPage' },
  { path: '/comming-soon/9', title: '量子算法与应用', group: 'quantum', page: 'ComingSoonPage' },

  { path: '/message', title: '消息中心', group: 'messages', page: 'MessagePage' },

  { path: '/resource', title: '资源概览', group: 'resource', page: 'ResourcePage' },
  { path: '/resource/dashboard', menuKey: 'dashboard', title: '资源大屏', group: 'resource', page: 'DashboardPage' },
  { path: '/dashboard', menuKey: 'dashboard', title: '资源大屏', group: 'resource', page: 'DashboardPage' },

  { path: '/workorder', title: '工单系统', group: 'workorder', page: 'WorkorderPage' },
  { path: '/workorder/detail/:id', title: '工单详情', group: 'workorder', page: 'WorkorderDetailPage' },

  { path: '/dataset', title: '数据集', group: 'dataset', page: 'DatasetIndexPage' },
  { path: '/dataset/detail/:id', title: '数据集详情', group: 'dataset', page: 'DatasetDetailPage' },

  { path: '/team', title: '团队管理', group: 'team', page: 'TeamListPage' },
  { path: '/team/detail/:id', title: '团队详情', group: 'team', page: 'TeamDetailPage' },

  { path: '/model', title: '模型', group: 'model', page: 'ModelIndexPage' },
  { path: '/model/detail/:id', title: '模型详情', group: 'model', page: 'ModelDetailPage' },

  { path: '/pay', title: '购买算力', group: 'pay', page: 'PayPage' },
  { path: '/pay/alipay', title: '支付宝支付', group: 'pay', page: 'AlipayPage' },

  { path: '/slurm-template', title: '任务模板', group: 'slurmTemplate', page: 'SlurmTemplatePage' },
  { path: '/slurm-template/form', title: '新建任务模板', group: 'slurmTemplate', page: 'SlurmTemplateFormPage' },
  { path: '/slurm-template/form/:id', title: '编辑任务模板', group: 'slurmTemplate', page: 'SlurmTemplateFormPage' },
  { path: '/slurm-template/eshell', menuKey: 'eshell', title: 'Shell工具', group: 'eshell', page: 'EshellPage' },

  { path: '/slurm-task', title: '任务管理', group: 'slurmTask', page: 'SlurmTaskListPage' },
  { path: '/slurm-task/task/:type', title: '提交作业', group: 'slurmTask', page: 'SlurmTaskFormPage' },
  { path: '/slurm-task/detail/:type/:id', title: '作业详情', group: 'slurmTask', page: 'SlurmTaskDetailPage' },
  { path: '/slurm-task/compare', title: '任务对比', group: 'slurmTask', page: 'SlurmTaskComparePage' },

  { path: '/public-data/dataset', title: '公共资源大厅', group: 'publicData', page: 'PublicDataIndexPage' },
  { path: '/public-data/model', title: '公共资源大厅', group: 'publicData', page: 'PublicDataIndexPage' },
  { path: '/public-data/detail/:type/:id', title: '公共资源详情', group: 'publicData', page: 'PublicDataDetailPage' },

  // 运营管理 (operators only; anyone else sees the no-permission page).
  { path: '/admin/overview', menuKey: 'admin-overview', title: '平台概览', group: 'admin', page: 'AdminOverviewPage' },
  { path: '/admin/users', menuKey: 'admin-users', title: '用户', group: 'admin', page: 'AdminUsersPage' },
  { path: '/admin/users/:id', menuKey: 'admin-users', title: '用户详情', group: 'admin', page: 'AdminUserDetailPage' },
  { path: '/admin/teams', menuKey: 'admin-teams', title: '团队', group: 'admin', page: 'AdminTeamsPage' },
  { path: '/admin/reviews', menuKey: 'admin-reviews', title: '审核', group: 'admin', page: 'AdminReviewsPage' },
  { path: '/admin/grants', menuKey: 'admin-grants', title: '算力发放', group: 'admin', page: 'AdminGrantsPage' },
  { path: '/admin/reconcile', menuKey: 'admin-reconcile', title: '计量对账', group: 'admin', page: 'AdminReconcilePage' },
  { path: '/admin/audit-logs', menuKey: 'admin-audit', title: '审计日志', group: 'admin', page: 'AdminAuditPage' },
  { path: '/admin/centers', menuKey: 'admin-centers', title: '分中心', group: 'admin', page: 'AdminCentersPage' },
  { path: '/admin/orders', menuKey: 'admin-orders', title: '订单', group: 'admin', page: 'AdminOrdersPage' },
];

/** Routes on a plain page without the header and menu. */
export const PLAIN_ROUTES: AppRoute[] = [
  { path: '/login', title: '登录', group: 'auth', page: 'LoginPage' },
  { path: '/login/register', title: '注册', group: 'authForms', page: 'RegisterPage' },
  { path: '/login/find', title: '找回密码', group: 'authForms', page: 'FindPasswordPage' },
  { path: '/login/edit', title: '修改密码', group: 'authForms', page: 'EditPasswordPage' },
  { path: '/user-agreement', title: '用户协议', group: 'agreement', page: 'UserAgreementPage' },
];

/** Paths that only forward somewhere else. */
export const REDIRECTS: { path: string; to: string }[] = [
  { path: '/public-data', to: '/public-data/dataset' },
  { path: '/admin', to: '/admin/overview' },
];

/** The menu key of a route: explicit, else the first path segment (`/training/detail/x/1` → training). */
export function menuKeyOf(route: Pick<AppRoute, 'path' | 'menuKey'>): string {
  return route.menuKey ?? route.path.split('/')[1];
}
