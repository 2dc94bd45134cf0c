import type { PageQuery } from '@suanli/contracts';
import { Table, type TableColumnsType, type TableProps } from 'antd';
import type { HTMLAttributes } from 'react';
import { useBreakpoint } from '../hooks/use-breakpoint';
import type { PagedList } from '../hooks/use-paged-list';
import { ListEmpty, type ListEmptyText } from './paged-list';

// Apart from paged-list.tsx (the card and toolbar every list uses) so that a list drawn without antd's Table
// (the task lists, light-table.tsx) does not load it.

interface PagedTableProps<Row> extends Pick<TableProps<Row>, 'expandable'> {
  list: PagedList<PageQuery, Row>;
  columns: TableColumnsType<Row>;
  /** The `data-` attributes of a row (its testid, id, state…). */
  rowData: (row: Row) => Record<`data-${string}`, string>;
  empty: ListEmptyText;
  /** The table's scroll width; by default the sum of its columns' widths. */
  scrollX?: number;
  pageSizeOptions?: number[];
}

/** A server-paged table: page size, total and the simple pager on phones; the Chinese empty states. */
export function PagedTable<Row extends { id: string }>({ list, columns, rowData, empty, scrollX, pageSizeOptions = [10, 20, 50, 100], expandable }: PagedTableProps<Row>) {
  const screens = useBreakpoint();
  return (
    <Table<Row>
      rowKey="id"
      columns={columns}
      dataSource={list.rows}
      loading={list.list.isLoading}
      tableLayout="fixed"
      scroll={{ x: scrollX ?? columns.reduce((sum, c) => sum + Number(c.width ?? 0), 0) }}
      size={screens.md ? 'middle' : 'small'}
      expandable={expandable}
      pagination={{ ...list.page, showSizeChanger: screens.md, simple: !screens.sm, pageSizeOptions, showTotal: (total) => `共 ${total} 条` }}
      onRow={(row) => rowData(row) as HTMLAttributes<HTMLElement>}
      locale={{
        emptyText: (
          <ListEmpty filtered={list.filtered} empty={empty} />
        ),
      }}
    />
  );
}
