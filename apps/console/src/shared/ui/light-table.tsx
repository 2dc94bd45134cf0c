import { Checkbox, Pagination, type PaginationProps } from 'antd';
import type { ReactNode } from 'react';
import { useBreakpoint } from '../hooks/use-breakpoint';
import type { PagedList } from '../hooks/use-paged-list';
import type { PageQuery } from '@suanli/contracts';
import styles from './light-table.module.css';
import { ListEmpty, type ListEmptyText } from './paged-list';

/** A column of a LightTable: antd's column shape, the parts the task lists use. */
export interface LightColumn<Row> {
  key: string;
  title: ReactNode;
  width: number;
  dataIndex?: keyof Row & string;
  /** One line, cut with …; the cell's text is its title unless `showTitle` is false (the cell gives its own). */
  ellipsis?: boolean | { showTitle: boolean };
  render?: (value: never, row: Row, index: number) => ReactNode;
}

/** Check boxes on the rows (任务对比 picks runs with them); the parent keeps what is checked, across pages. */
export interface LightSelection<Row> {
  selected: readonly string[];
  onToggle: (row: Row, checked: boolean) => void;
  /** Why a row cannot be checked now (its box is disabled, with this as its title); undefined: it can. */
  blocked?: (row: Row) => string | undefined;
  /** The title of a box that can be checked. */
  title?: string;
}

const SELECT_WIDTH = 40;

interface LightPagedTableProps<Row> {
  list: PagedList<PageQuery, Row>;
  columns: LightColumn<Row>[];
  /** The `data-` attributes of a row (its testid, id, state…). */
  rowData: (row: Row) => Record<`data-${string}`, string>;
  empty: ListEmptyText;
  pageSizeOptions?: number[];
  selection?: LightSelection<Row>;
}

/** The selection column: a box per row, no select-all (the pick is capped and per type). */
function selectColumn<Row extends { id: string }>(sel: LightSelection<Row>): LightColumn<Row> {
  return {
    key: 'select',
    title: <span className={styles.srOnly}>选择</span>,
    width: SELECT_WIDTH,
    render: (_v, row) => {
      const checked = sel.selected.includes(row.id);
      const why = checked ? undefined : sel.blocked?.(row);
      return <Checkbox checked={checked} disabled={why !== undefined} title={why ?? sel.title} aria-label={why ?? sel.title ?? '选择'} onChange={(e) => sel.onToggle(row, e.target.checked)} />;
    },
  };
}

/**
 * A server-paged table drawn as plain markup in antd Table's look (middle size, small on phones), for the task
 * lists: the page most users see right after signing in. antd's Table brings its filter dropdown, Tree, Radio,
 * Checkbox and virtual body (~55 KiB gzip, docs/performance.md) that these lists never use. Same behaviour as
 * PagedTable: fixed layout, horizontal scroll inside the card, the Chinese empty states, antd's Pagination.
 */
export function LightPagedTable<Row extends { id: string }>({ list, columns: own, rowData, empty, pageSizeOptions = [10, 20, 50, 100], selection }: LightPagedTableProps<Row>) {
  const screens = useBreakpoint();
  const columns = selection ? [selectColumn(selection), ...own] : own;
  const width = columns.reduce((sum, c) => sum + c.width, 0);
  const loading = list.list.isLoading;
  const pagination: PaginationProps = { ...list.page, showSizeChanger: screens.md, simple: !screens.sm, pageSizeOptions, showTotal: (total) => `共 ${total} 条` };
  return (
    <div className={screens.md ? styles.wrap : `${styles.wrap} ${styles.small}`}>
      <div className={styles.body} aria-busy={loading}>
        <div className={styles.scroll}>
          <table className={loading ? `${styles.table} ${styles.loading}` : styles.table} style={{ width: '100%', minWidth: width }}>
            <colgroup>
              {columns.map((c) => (
                <col key={c.key} style={{ width: c.width }} />
              ))}
            </colgroup>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.key} scope="col" className={styles.th}>
                    {c.title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {list.rows.map((row, index) => (
                <tr key={row.id} className={styles.row} {...rowData(row)}>
                  {columns.map((c) => {
                    const value = c.dataIndex ? row[c.dataIndex] : undefined;
                    const content = c.render ? c.render(value as never, row, index) : (value as ReactNode);
                    const title = c.ellipsis && (c.ellipsis === true || c.ellipsis.showTitle) && (typeof content === 'string' || typeof content === 'number') ? String(content) : undefined;
                    return (
                      <td key={c.key} className={c.ellipsis ? `${styles.td} ${styles.ellipsis}` : styles.td} title={title}>
                        {content}
                      </td>
                    );
                  })}
                </tr>
              ))}
              {list.rows.length === 0 ? (
                <tr>
                  <td colSpan={columns.length} className={styles.emptyCell}>
                    {loading ? (
                      <div className={styles.placeholder} />
                    ) : (
                      <ListEmpty filtered={list.filtered} empty={empty} />
                    )}
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
        {loading ? <span className={styles.spinner} role="status" aria-label="加载中" /> : null}
      </div>
      {/* As antd's Table: no pager on an empty list, and a small one at both of its sizes. */}
      {list.page.total ? <Pagination className={styles.pagination} size="small" {...pagination} /> : null}
    </div>
  );
}
