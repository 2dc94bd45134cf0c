/**
 * Every TanStack Query cache key of the console, in one place: the shell, the socket and the features all
 * take theirs from here, so an invalidation can never miss a key spelled differently elsewhere. Live
 * updates invalidate by the first element, so a feature roots every key of its task lists/details at
 * `training` or `slurm-task`; storage roots everything of a center at ['storage', centerId].
 */
export const queryKeys = {
  currentUser: ['user', 'current'] as const,
  /**
   * 运营管理: users and the audit log under ['admin'], so a disable or enable refreshes the lists, the detail
   * and the log at once.
   */
  admin: {
    root: ['admin'] as const,
    users: (query: object) => ['admin', 'users', query] as const,
    user: (id: string) => ['admin', 'user', id] as const,
    teams: (query: object) => ['admin', 'teams', query] as const,
    /** 审核: image tags waiting to be made public. */
    imageReviews: ['admin', 'reviews', 'image'] as const,
    audit: (query: object) => ['admin', 'audit', query] as const,
    /** 运营管理 › 分中心 (also refreshed by `center.changed`). */
    centers: ['admin', 'centers'] as const,
    grants: (query: object) => ['admin', 'grants', query] as const,
    /** 计量对账 of a center (or all) over a range of days. */
    reconcile: (query: object) => ['admin', 'reconcile', query] as const,
    /** 平台概览 over the last `days` days. */
    overview: (days: number) => ['admin', 'overview', days] as const,
  },
  clusterAccounts: ['user', 'cluster-accounts'] as const,
  compPowers: (userId: string | undefined) => ['comp-powers', userId] as const,
  compPowersRoot: ['comp-powers'] as const,
  /** 订单明细 and 费用明细: under ['billing'], so `comp-power.changed` (a paid order) refreshes them all. */
  billing: {
    root: ['billing'] as const,
    orders: (query: object) => ['billing', 'orders', query] as const,
    order: (id: string) => ['billing', 'order', id] as const,
    records: (query: object) => ['billing', 'records', query] as const,
    products: (centerId: string, cardTypeId: string) => ['billing', 'products', centerId, cardTypeId] as const,
    centers: ['billing', 'sub-centers'] as const,
    channels: ['billing', 'pay-channels'] as const,
    charge: (id: string) => ['billing', 'charge', id] as const,
    consume: (id: string) => ['billing', 'consume', id] as const,
    consumeStats: (query: object) => ['billing', 'consume-stats', query] as const,
    days: (query: object) => ['billing', 'days', query] as const,
    /** 任务管理 › 外部作业: their cost moves with every draw, so they sit under ['billing'] too. */
    outsideJobs: (query: object) => ['billing', 'outside-jobs', query] as const,
  },
  messagesRoot: ['messages'] as const,
  messageList: (query: object) => ['messages', 'list', query] as const,
  unreadCount: (userId: string | undefined) => ['messages', 'unread-count', userId] as const,
  unreadCountRoot: ['messages', 'unread-count'] as const,
  dict: (name: string) => ['dicts', name] as const,
  /** Roots for `task.state.changed`, by the event's `kind`. */
  tasksRoot: { training: ['training'], slurm: ['slurm-task'] } as const,
  /**
   * AI计算 › 训练任务. Lists, details and the placement preview sit under the `training` root, so a
   * `task.state.changed` of kind `training` refreshes every one of them (and the preview's free capacity).
   */
  training: {
    root: ['training'] as const,
    list: (query: object) => ['training', 'list', query] as const,
    detail: (id: string) => ['training', 'detail', id] as const,
    ssh: (id: string) => ['training', 'ssh', id] as const,
    placement: (query: object) => ['training', 'placement', query] as const,
  },
  /**
   * 科学计算 › 任务管理. Lists and details sit under the `slurm-task` root (= tasksRoot.slurm), so a
   * `task.state.changed` of kind `slurm` refreshes every one of them.
   */
  slurmTask: {
    root: ['slurm-task'] as const,
    list: (query: object) => ['slurm-task', 'list', query] as const,
    detail: (id: string) => ['slurm-task', 'detail', id] as const,
  },
  /** 科学计算 › 任务模板 (not moved by task events; saving a task as a template refreshes them). */
  slurmTemplate: {
    root: ['slurm-template'] as const,
    list: (query: object) => ['slurm-template', 'list', query] as const,
    detail: (id: string) => ['slurm-template', 'detail', id] as const,
  },
  /** A sub-center's partitions (cards per node, nodes): the task forms bound card and node counts with them. */
  subCenterDetail: (centerId: string) => ['sub-centers', centerId, 'detail'] as const,
  subCenterDetailRoot: ['sub-centers'] as const,
  /**
   * The task form's image catalogue per card type: the public images (config) and the caller's private tags
   * (refreshed when an image import finishes).
   */
  images: (cardTypeId: string | undefined) => ['images', 'public', cardTypeId ?? ''] as const,
  imagesRoot: ['images'] as const,
  /** 镜像 › 公共镜像: the public part of the catalogue (config). */
  imagesPublic: ['images', 'catalogue'] as const,
  /** Shell工具: which centers offer a terminal, the caller's session records and (operators) everyone's. */
  eshell: {
    centers: ['eshell', 'centers'] as const,
    sessionsRoot: ['eshell', 'sessions'] as const,
    sessions: (query: object) => ['eshell', 'sessions', 'own', query] as const,
    allSessions: (query: object) => ['eshell', 'sessions', 'all', query] as const,
  },
  /** 资源: overview, series, vendors, card-hours; refreshed on a timer and on task.state.changed. */
  resource: {
    root: ['resource'] as const,
    overview: ['resource', 'overview'] as const,
    utilization: (hours: number) => ['resource', 'utilization', hours] as const,
    vendors: ['resource', 'vendors'] as const,
    cardHours: (days: number) => ['resource', 'card-hours', days] as const,
  },
  /**
   * 数据集 / 模型: everything of a kind under ['asset', kind], so one `asset.version.changed` refreshes its
   * lists and details (a version's progress and state).
   */
  asset: {
    root: (kind: string) => ['asset', kind] as const,
    list: (kind: string, query: object) => ['asset', kind, 'list', query] as const,
    detail: (kind: string, id: string) => ['asset', kind, 'detail', id] as const,
    files: (kind: string, id: string, versionId: string, path: string) => ['asset', kind, 'files', id, versionId, path] as const,
    readme: (kind: string, id: string, versionId: string) => ['asset', kind, 'readme', id, versionId] as const,
    mountable: (kind: string, centerId: string) => ['asset', kind, 'list', 'mountable', centerId] as const,
  },
  /** 镜像: the registry (address, namespace), the caller's repositories, one repository's tags. */
  image: {
    root: ['image'] as const,
    registry: ['image', 'registry'] as const,
    mine: ['image', 'mine'] as const,
    /** The caller's requests to make a tag public (审核). */
    publications: ['image', 'publications'] as const,
    detail: (name: string) => ['image', 'detail', name] as const,
    /** One import from storage; `image.import.changed` writes its progress here. */
    import: (id: string) => ['image', 'import', id] as const,
  },
  /**
   * 跨中心同步: the caller's jobs. `sync.changed` carries the whole job: it is written into every cached list
   * and detail holding it, and the lists are refetched when a job is new to them or changed state.
   */
  sync: {
    root: ['sync'] as const,
    listRoot: ['sync', 'list'] as const,
    list: (query: object) => ['sync', 'list', query] as const,
    detail: (id: string) => ['sync', 'detail', id] as const,
  },
  /**
   * 工单: lists (mine / all) and details under ['workorder'], so `workorder.changed` refreshes them; a
   * screenshot's bytes never change (its own key, never invalidated); the form's task picker.
   */
  workorder: {
    listRoot: ['workorder', 'list'] as const,
    list: (query: object) => ['workorder', 'list', query] as const,
    detail: (id: string) => ['workorder', 'detail', id] as const,
    attachment: (id: string) => ['workorder', 'attachment', id] as const,
    tasks: ['workorder', 'tasks'] as const,
    linkedTask: (taskId: string) => ['workorder', 'linked-task', taskId] as const,
  },
  /**
   * 团队: everything under ['team'], so `team.changed` (a member joined or left, a role, an invitation)
   * refreshes the list, the details and the invitations at once; the invite dialog's user search.
   */
  team: {
    root: ['team'] as const,
    list: ['team', 'list'] as const,
    detail: (id: string) => ['team', 'detail', id] as const,
    invitations: ['team', 'invitations'] as const,
    invitation: (id: string) => ['team', 'invitation', id] as const,
    users: (keyword: string) => ['team', 'users', keyword] as const,
    /** 团队算力 (ADR 0017): the team's balance, its members' usage this month, its records. */
    compute: (id: string) => ['team', 'compute', id] as const,
    usage: (id: string) => ['team', 'usage', id] as const,
    records: (id: string) => ['team', 'records', id] as const,
    /** 团队详情's 共享给团队的数据集 / 模型 (ADR 0018). */
    shared: (id: string, kind: 'dataset' | 'model') => ['team', 'shared', id, kind] as const,
  },
  /** 密钥对: the caller's keys with their installs. */
  keypairs: ['keypairs'] as const,
  storage: {
    centers: ['storage', 'sub-centers'] as const,
    /** One invalidation of this refreshes a center's listings, usage and file details. */
    center: (centerId: string) => ['storage', centerId] as const,
    list: (centerId: string, params: object) => ['storage', centerId, 'list', params] as const,
    usage: (centerId: string) => ['storage', centerId, 'usage'] as const,
    /** The caller's interrupted (staged) uploads on the center: refreshed with everything else of it after an upload. */
    staged: (centerId: string) => ['storage', centerId, 'staged'] as const,
    entry: (centerId: string, path: string) => ['storage', centerId, 'entry', path] as const,
    preview: (centerId: string, path: string, version: number) => ['storage', centerId, 'preview', path, version] as const,
  },
};
