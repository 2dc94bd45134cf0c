/**
 * The top menu (design/console.md "Top menu"). Entry keys are the menu keys of the route table, so the
 * entry of the current route lights up.
 */
export interface MenuEntry {
  key: string;
  label: string;
  path: string;
}

export interface MenuGroup {
  key: string;
  label: string;
  children: MenuEntry[];
}

export const TOP_MENU: MenuGroup[] = [
  { key: 'group-ai', label: 'AI计算', children: [{ key: 'training', label: '训练任务', path: '/training' }] },
  {
    key: 'group-science',
    label: '科学计算',
    children: [
      { key: 'slurm-template', label: '任务模板', path: '/slurm-template' },
      { key: 'slurm-task', label: '任务管理', path: '/slurm-task' },
      { key: 'eshell', label: 'Shell工具', path: '/slurm-template/eshell' },
    ],
  },
  {
    key: 'group-quantum',
    label: '量子计算',
    children: [
      { key: 'quantum', label: '量子计算云平台', path: '/quantum' },
      { key: 'comming-soon', label: '量子算法与应用', path: '/comming-soon/9' },
    ],
  },
  {
    key: 'group-common',
    label: '公共服务',
    children: [
      { key: 'storage', label: '存储管理', path: '/storage' },
      { key: 'dataset', label: '数据集', path: '/dataset' },
      { key: 'model', label: '模型', path: '/model' },
      { key: 'image', label: '镜像', path: '/image' },
      { key: 'keypair', label: '密钥对', path: '/keypair' },
      { key: 'public-data', label: '公共资源大厅', path: '/public-data' },
    ],
  },
  {
    key: 'group-resource',
    label: '算力资源',
    children: [
      { key: 'resource', label: '资源概览', path: '/resource' },
      { key: 'dashboard', label: '资源大屏', path: '/resource/dashboard' },
    ],
  },
  {
    key: 'group-expense',
    label: '费用中心',
    children: [
      { key: 'expense', label: '费用明细', path: '/expense' },
      { key: 'order', label: '订单明细', path: '/order' },
    ],
  },
];

/**
 * 运营管理 (issue 20): only operators see it (`UserInfo.roles`); anyone else who opens its pages gets the
 * no-permission page, and the gateway refuses its calls (1020) whatever the console shows.
 */
export const OPERATOR_MENU: MenuGroup = {
  key: 'group-admin',
  label: '运营管理',
  children: [
    { key: 'admin-overview', label: '平台概览', path: '/admin/overview' },
    { key: 'admin-users', label: '用户', path: '/admin/users' },
    { key: 'admin-teams', label: '团队', path: '/admin/teams' },
    { key: 'admin-orders', label: '订单', path: '/admin/orders' },
    { key: 'admin-centers', label: '分中心', path: '/admin/centers' },
    { key: 'workorder', label: '工单系统', path: '/workorder?tab=all' },
    { key: 'admin-reviews', label: '审核', path: '/admin/reviews' },
    { key: 'admin-grants', label: '算力发放', path: '/admin/grants' },
    { key: 'admin-reconcile', label: '计量对账', path: '/admin/reconcile' },
    { key: 'admin-audit', label: '审计日志', path: '/admin/audit-logs' },
  ],
};

const OPERATORS_MENU: MenuGroup[] = [...TOP_MENU, OPERATOR_MENU];

/** The top menu of a user: everyone's groups, and 运营管理 for operators (the same arrays every call). */
export function menuFor(operator: boolean): MenuGroup[] {
  return operator ? OPERATORS_MENU : TOP_MENU;
}

const PATH_BY_KEY = new Map(OPERATORS_MENU.flatMap((g) => g.children.map((e) => [e.key, e.path] as const)));

/** Where a menu key leads; unknown keys go to team management (console-spec §2). */
export function menuPath(key: string): string {
  return PATH_BY_KEY.get(key) ?? '/team';
}

/** The group holding a key, so the submenu of the current page can be marked too. */
export function menuGroupOf(key: string | undefined): string | undefined {
  return OPERATORS_MENU.find((g) => g.children.some((e) => e.key === key))?.key;
}
