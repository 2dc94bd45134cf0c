/**
 * Cache keys shared between the shell, the socket and the features. Live updates invalidate by the first
 * element, so a feature roots every key of its task lists/details at `training` or `slurm-task`.
 */
export const queryKeys = {
  currentUser: ['user', 'current'] as const,
  clusterAccounts: ['user', 'cluster-accounts'] as const,
  compPowers: (userId: string | undefined) => ['comp-powers', userId] as const,
  compPowersRoot: ['comp-powers'] as const,
  messagesRoot: ['messages'] as const,
  unreadCount: (userId: string | undefined) => ['messages', 'unread-count', userId] as const,
  unreadCountRoot: ['messages', 'unread-count'] as const,
  dict: (name: string) => ['dicts', name] as const,
  /** Roots for `task.state.changed`, by the event's `kind`. */
  tasksRoot: { training: ['training'], slurm: ['slurm-task'] } as const,
};
