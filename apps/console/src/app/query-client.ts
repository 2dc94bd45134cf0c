import { QueryClient } from '@tanstack/react-query';

/**
 * One cache for all server state. The request pipeline already toasts every failure, so queries do not
 * retry business errors (a retry would toast again) and do not refetch on every window focus.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});
