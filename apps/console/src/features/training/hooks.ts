import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { deleteTask, stopTask } from './api';

/**
 * 停止 and 删除 for lists and details. A success refreshes every training query; the state the stop leads
 * to (STOPPING, then STOPPED) arrives with the socket's `task.state.changed`, which refreshes them again.
 */
export function useTaskActions() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.training.root });
  const stop = useMutation({
    mutationFn: (id: string) => stopTask(id),
    onSuccess: () => {
      toast.success('已发送停止请求');
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteTask(id),
    onSuccess: (_d, id) => {
      toast.success('任务已删除');
      queryClient.removeQueries({ queryKey: queryKeys.training.detail(id) });
      return refresh();
    },
  });
  return { stop, remove };
}
