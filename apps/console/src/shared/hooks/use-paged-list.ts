import type { Page, PageQuery } from '@suanli/contracts';
import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';

interface PagedListOptions<Q extends PageQuery, Row> {
  key: (query: Q) => QueryKey;
  fetch: (query: Q) => Promise<Page<Row>>;
  /** What every query asks besides the user's filters (a list page's fixed task type). */
  fixed?: Partial<Q>;
  /** Filters set when the list first shows (a link that opens the list narrowed down). */
  initial?: Partial<Omit<Q, 'pageNum' | 'pageSize'>>;
}

type Filters<Q> = Partial<Omit<Q, 'pageNum' | 'pageSize'>>;

/**
 * A list paged, searched and filtered on the server. A filter's change or a new page size goes back to
 * the first page; the page on screen stays while the next one loads. Empty filters are not sent.
 */
export function usePagedList<Q extends PageQuery, Row>({ key, fetch, fixed, initial }: PagedListOptions<Q, Row>) {
  const [page, setPage] = useState({ pageNum: 1, pageSize: 10 });
  const [filters, setFilters] = useState<Filters<Q>>(initial ?? {});
  const chosen = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== '')) as Filters<Q>;
  const query = { ...page, ...fixed, ...chosen } as Q;
  const list = useQuery({ queryKey: key(query), queryFn: () => fetch(query), placeholderData: keepPreviousData });
  return {
    list,
    rows: list.data?.list ?? [],
    filters,
    /** Whether the user narrowed the list (an empty list then says so, rather than offering to create). */
    filtered: Object.keys(chosen).length > 0,
    setFilter<K extends keyof Filters<Q>>(name: K, value: Filters<Q>[K] | undefined) {
      setFilters((f) => ({ ...f, [name]: value }));
      setPage((p) => ({ ...p, pageNum: 1 }));
    },
    page: {
      current: page.pageNum,
      pageSize: page.pageSize,
      total: list.data?.total ?? 0,
      onChange: (pageNum: number, pageSize: number) => setPage({ pageNum: pageSize === page.pageSize ? pageNum : 1, pageSize }),
    },
  };
}

export type PagedList<Q extends PageQuery, Row> = ReturnType<typeof usePagedList<Q, Row>>;
