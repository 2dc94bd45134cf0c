import type { SlurmTemplate } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { queryKeys } from '../../app/query-keys';
import { pageTemplates } from '../slurm-template/api';

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
