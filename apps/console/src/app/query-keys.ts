/**
 * Every TanStack Query cache key of the console, in one place: the shell, the socket and the features all
 * take theirs from here, so an invalidation can never miss a key spelled differently elsewhere. Live
 * updates invalidate by the first element, so a feature roots every key of its task lists/details at
 * `training` or `slurm-task`; storage roots everything of a center at ['storage', centerId].
 */
export const queryKeys = {
  currentUser: ['user', 'current'] as const,
  clusterAccounts: ['user', 'cluster-accounts'] as const,
  compPowers: (userId: string | undefined) => ['comp-powers', userId] as const,
  compPowersRoot: ['comp-powers'] as const,
  messagesRoot: ['messages'] as const,
  messageList: (query: object) => ['messages', 'list', query] as const,
  unreadCount: (userId: string | undefined) => ['messages', 'unread-count', userId] as const,
  unreadCountRoot: ['messages', 'unread-count'] as const,
  dict: (name: string) => ['dicts', name] as const,
  /** Roots for `task.state.changed`, by the event's `kind`. */
  tasksRoot: { training: ['training'], slurm: ['slurm-task'] } as const,
  storage: {
    centers: ['storage', 'sub-centers'] as const,
    /** One invalidation of this refreshes a center's listings, usage and file details. */
    center: (centerId: string) => ['storage', centerId] as const,
    list: (centerId: string, params: object) => ['storage', centerId, 'list', params] as const,
    usage: (centerId: string) => ['storage', centerId, 'usage'] as const,
    entry: (centerId: string, path: string) => ['storage', centerId, 'entry', path] as const,
    preview: (centerId: string, path: string, version: number) => ['storage', centerId, 'preview', path, version] as const,
  },
};
