import { ReloadOutlined } from '@ant-design/icons';
import type { PageQuery } from '@suanli/contracts';
import { Button, Card, Empty, Input, Space, Table, Typography, type TableColumnsType, type TableProps } from 'antd';
import type { HTMLAttributes, ReactNode } from 'react';
import { useBreakpoint } from '../hooks/use-breakpoint';
import type { PagedList } from '../hooks/use-paged-list';

/** The card a list page's controls and table sit in (tighter on phones). */
export function ListCard({ children }: { children: ReactNode }) {
  const screens = useBreakpoint();
  return <Card styles={{ body: { display: 'flex', flexDirection: 'column', gap: 16, padding: screens.sm ? 24 : 12 } }}>{children}</Card>;
}

interface ListToolbarProps {
  /** A list with a name search (server-side `keyword`). */
  list: { setFilter: (name: 'keyword', value: string) => void; list: Pick<PagedList<PageQuery, unknown>['list'], 'refetch' | 'isFetching'> };
  /** The name search's placeholder and testid. */
  search: { placeholder: string; testId: string };
  refreshTestId: string;
  /** The list's filters, between the search and 刷新. */
  children?: ReactNode;
}

/** Above a list: the name search, the list's filters and 刷新, in a row that wraps (full width on phones). */
export function ListToolbar({ list, search, refreshTestId, children }: ListToolbarProps) {
  const screens = useBreakpoint();
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
      <Input.Search
        allowClear
        placeholder={search.placeholder}
        style={{ width: screens.sm ? 260 : '100%' }}
        maxLength={64}
        onSearch={(v) => list.setFilter('keyword', v.trim())}
        data-testid={search.testId}
      />
      {children}
      <Button icon={<ReloadOutlined />} onClick={() => list.list.refetch()} loading={list.list.isFetching} data-testid={refreshTestId}>
        刷新
      </Button>
    </div>
  );
}

/** A filter's width in the toolbar: its own on wider screens, the whole row on phones. */
export function useFilterWidth(width: number): number | string {
  return useBreakpoint().sm ? width : '100%';
}

interface PagedTableProps<Row> extends Pick<TableProps<Row>, 'expandable' | 'rowSelection'> {
  list: PagedList<PageQuery, Row>;
  columns: TableColumnsType<Row>;
  /** The `data-` attributes of a row (its testid, id, state…). */
  rowData: (row: Row) => Record<`data-${string}`, string>;
  /** An empty list: `filtered` when the filters hide every row; else `none` and a way to make the first. */
  empty: { filtered: string; none: string; action: { label: string; onClick: () => void } };
  /** The table's scroll width; by default the sum of its columns' widths. */
  scrollX?: number;
  pageSizeOptions?: number[];
}

/** A server-paged table: page size, total and the simple pager on phones; the Chinese empty states. */
export function PagedTable<Row extends { id: string }>({ list, columns, rowData, empty, scrollX, pageSizeOptions = [10, 20, 50, 100], expandable, rowSelection }: PagedTableProps<Row>) {
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
      rowSelection={rowSelection}
      pagination={{ ...list.page, showSizeChanger: screens.md, simple: !screens.sm, pageSizeOptions, showTotal: (total) => `共 ${total} 条` }}
      onRow={(row) => rowData(row) as HTMLAttributes<HTMLElement>}
      locale={{
        emptyText: (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={
              list.filtered ? (
                empty.filtered
              ) : (
                <Space orientation="vertical" size={4}>
                  <Typography.Text type="secondary">{empty.none}</Typography.Text>
                  <Button type="link" onClick={empty.action.onClick}>
                    {empty.action.label}
                  </Button>
                </Space>
              )
            }
          />
        ),
      }}
    />
  );
}
