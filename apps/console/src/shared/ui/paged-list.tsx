import { ReloadOutlined } from '@ant-design/icons';
import type { PageQuery } from '@suanli/contracts';
import { Button, Empty, Space, Typography } from 'antd';
// Search by its own module: antd's `Input` index also brings TextArea, Password and OTP to every list page.
import Search from 'antd/es/input/Search';
import type { ReactNode } from 'react';
import { useBreakpoint } from '../hooks/use-breakpoint';
import type { PagedList } from '../hooks/use-paged-list';
import styles from './paged-list.module.css';

/**
 * The card a list page's controls and table sit in (tighter on phones): antd Card's look in plain markup, as
 * antd's Card brings Tabs and Skeleton (~17 KiB gzip) to every list page, the task list after sign-in included.
 */
export function ListCard({ children }: { children: ReactNode }) {
  const screens = useBreakpoint();
  return <div className={screens.sm ? styles.card : `${styles.card} ${styles.cardPhone}`}>{children}</div>;
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
      <Search
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

/** What an empty list says: `filtered` when the filters hide every row; else `none` and a way to make the first. */
export interface ListEmptyText {
  filtered: string;
  none: string;
  action: { label: string; onClick: () => void };
}

/** The Chinese empty state of a paged list (antd's Table and the light table alike). */
export function ListEmpty({ filtered, empty }: { filtered: boolean; empty: ListEmptyText }) {
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        filtered ? (
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
  );
}
