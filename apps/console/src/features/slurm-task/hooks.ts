import type { SlurmTemplate } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { pageTemplates } from '../slurm-template/api';
import { deleteSlurmTask, resubmitSlurmTask, stopSlurmTask } from './api';

/**
 * 停止, 重新提交 and 删除 for the list and the detail. A success refreshes every Slurm task query; the
 * states that follow (STOPPING, then STOPPED; QUEUED, RUNNING…) arrive with the socket's
 * `task.state.changed`, which refreshes them again.
 */
export function useSlurmTaskActions() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.slurmTask.root });
  const stop = useMutation({
    mutationFn: (id: string) => stopSlurmTask(id),
    onSuccess: () => {
      toast.success('已发送停止请求');
      return refresh();
    },
  });
  const resubmit = useMutation({
    mutationFn: (id: string) => resubmitSlurmTask(id),
    onSuccess: () => {
      toast.success('已重新提交，生成了新的任务');
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteSlurmTask(id),
    onSuccess: (_d, id) => {
      toast.success('任务已删除');
      queryClient.removeQueries({ queryKey: queryKeys.slurmTask.detail(id) });
      return refresh();
    },
  });
  return { stop, resubmit, remove };
}

/** The first page of templates the user can use (platform first, then own), as options and an id → template map. */
export const TEMPLATE_CHOICES_QUERY = { pageNum: 1, pageSize: 100 } as const;

export function useTemplateChoices() {
  const query = useQuery({
    queryKey: queryKeys.slurmTemplate.list(TEMPLATE_CHOICES_QUERY),
    queryFn: () => pageTemplates({ ...TEMPLATE_CHOICES_QUERY }),
    staleTime: 60_000,
  });
  const byId = useMemo(() => new Map<string, SlurmTemplate>((query.data?.list ?? []).map((t) => [t.id, t])), [query.data]);
  return { ...query, byId, list: query.data?.list ?? [] };
}
