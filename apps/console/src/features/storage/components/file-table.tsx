import { DeleteOutlined, DownloadOutlined, EditOutlined, FileOutlined, FolderFilled, LinkOutlined, MoreOutlined } from '@ant-design/icons';
import { formatFileSize, type FileEntry } from '@suanli/contracts';
import { App, Button, Dropdown, Flex, Popconfirm, Table, Typography } from 'antd';
import type { ColumnsType, SorterResult } from 'antd/es/table/interface';
import type { TablePaginationConfig } from 'antd';
import dayjs from 'dayjs';
import type { HTMLAttributes, ReactNode } from 'react';
import { useBreakpoint } from '../../../shared/hooks/use-breakpoint';
import type { SortField, SortOrder } from '../api';

export interface TableQuery {
  pageNum: number;
  pageSize: number;
  sortField?: SortField;
  sortOrder?: SortOrder;
}

export interface FileTableProps extends TableQuery {
  entries: FileEntry[];
  total: number;
  loading: boolean;
  selectedKeys: string[];
  emptyText: ReactNode;
  onSelect: (keys: string[], rows: FileEntry[]) => void;
  onQueryChange: (q: TableQuery) => void;
  /** A folder opens in place; a file opens its detail page. */
  onOpen: (entry: FileEntry) => void;
  onRename: (entry: FileEntry) => void;
  onDownload: (entry: FileEntry) => void;
  onDelete: (entry: FileEntry) => Promise<unknown>;
}

export const formatTime = (ms: number) => dayjs(ms).format('YYYY-MM-DD HH:mm:ss');

// Wide enough, a cut name is one line with its full text on hover; on a phone (no hover) it may take two.
const ONE_LINE = { minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;
const TWO_LINES = { minWidth: 0, overflow: 'hidden', whiteSpace: 'normal', display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical', wordBreak: 'break-all' } as const;

const sizeText = (entry: FileEntry) => (entry.type === 'dir' ? '-' : formatFileSize(entry.size));

/**
 * The directory listing: sorting and paging happen on the server, this only draws and reports.
 *
 * Layout by width (the name always gets the room that is left): from lg (992 px) every column and the row
 * actions as links; from md (768 px) 修改时间 moves under the name and the actions into a ⋯ menu; below
 * that 大小 moves under the name too. The table never grows wider than the page.
 */
export function FileTable(props: FileTableProps) {
  const { sortField, sortOrder } = props;
  const { modal } = App.useApp();
  const screens = useBreakpoint();
  const sorted = (field: SortField) => (sortField === field ? (sortOrder ?? null) : null);
  const confirmDelete = (entry: FileEntry) =>
    modal.confirm({
      title: `确定删除“${entry.name}”吗？`,
      content: entry.type === 'dir' ? '文件夹内的所有内容都将被删除，且不可恢复。' : '删除后不可恢复。',
      okText: '删除',
      okType: 'danger',
      cancelText: '取消',
      okButtonProps: { ...({ 'data-testid': 'storage-confirm-ok' } as object) },
      onOk: () => props.onDelete(entry),
    });
  const meta = (entry: FileEntry) => {
    const parts = [!screens.md && entry.type === 'file' ? sizeText(entry) : null, !screens.lg ? formatTime(entry.updateTime) : null].filter(Boolean);
    return parts.length ? (
      <Typography.Text type="secondary" style={{ fontSize: 12, paddingLeft: 26 }} data-testid="storage-meta">
        {parts.join(' · ')}
      </Typography.Text>
    ) : null;
  };
  const columns: ColumnsType<FileEntry> = [
    {
      title: '名称',
      dataIndex: 'name',
      key: 'name',
      sorter: true,
      sortOrder: sorted('name'),
      ellipsis: { showTitle: false },
      render: (name: string, entry) => (
        <Flex vertical gap={2} style={{ minWidth: 0 }}>
          <Typography.Link data-testid="storage-open" onClick={() => props.onOpen(entry)} title={name} style={{ display: 'block', minWidth: 0 }}>
            <Flex align={screens.md ? 'center' : 'flex-start'} gap={8} component="span" style={{ minWidth: 0 }}>
              {entry.type === 'dir' ? (
                <FolderFilled style={{ color: '#f7c244', fontSize: 18, flex: 'none' }} />
              ) : entry.type === 'link' ? (
                // A symlink made on the cluster (a job, a shell): shown as such, never followed by the platform.
                <LinkOutlined title="符号链接（平台不会跟随）" data-testid="storage-link-icon" style={{ color: '#8c8c8c', fontSize: 16, flex: 'none' }} />
              ) : (
                <FileOutlined style={{ color: '#8c8c8c', fontSize: 16, flex: 'none' }} />
              )}
              <span data-testid="storage-name" style={screens.md ? ONE_LINE : TWO_LINES}>
                {name}
              </span>
            </Flex>
          </Typography.Link>
          {meta(entry)}
        </Flex>
      ),
    },
    {
      title: '大小',
      dataIndex: 'size',
      key: 'size',
      width: 120,
      responsive: ['md'],
      sorter: true,
      sortOrder: sorted('size'),
      render: (_size: number, entry) => sizeText(entry),
    },
    {
      title: '修改时间',
      dataIndex: 'updateTime',
      key: 'updateTime',
      width: 190,
      responsive: ['lg'],
      sorter: true,
      sortOrder: sorted('updateTime'),
      render: (ms: number) => formatTime(ms),
    },
    screens.lg
      ? {
          title: '操作',
          key: 'actions',
          width: 260,
          render: (_: unknown, entry: FileEntry) => (
            <Flex gap={0} wrap={false}>
              <Button type="link" size="small" icon={<EditOutlined />} data-testid="storage-rename" onClick={() => props.onRename(entry)}>
                重命名
              </Button>
              <Button type="link" size="small" icon={<DownloadOutlined />} data-testid="storage-row-download" onClick={() => props.onDownload(entry)}>
                下载
              </Button>
              <Popconfirm
                title={`确定删除“${entry.name}”吗？`}
                description={entry.type === 'dir' ? '文件夹内的所有内容都将被删除，且不可恢复。' : '删除后不可恢复。'}
                okText="删除"
                cancelText="取消"
                okButtonProps={{ danger: true, ...({ 'data-testid': 'storage-confirm-ok' } as object) }}
                onConfirm={() => props.onDelete(entry)}
              >
                <Button type="link" size="small" danger icon={<DeleteOutlined />} data-testid="storage-row-delete">
                  删除
                </Button>
              </Popconfirm>
            </Flex>
          ),
        }
      : {
          title: '',
          key: 'actions',
          width: 48,
          render: (_: unknown, entry: FileEntry) => (
            <Dropdown
              trigger={['click']}
              placement="bottomRight"
              menu={{
                items: [
                  { key: 'rename', icon: <EditOutlined />, label: <span data-testid="storage-rename">重命名</span> },
                  { key: 'download', icon: <DownloadOutlined />, label: <span data-testid="storage-row-download">下载</span> },
                  { key: 'delete', icon: <DeleteOutlined />, danger: true, label: <span data-testid="storage-row-delete">删除</span> },
                ],
                onClick: ({ key }) => {
                  if (key === 'rename') props.onRename(entry);
                  else if (key === 'download') props.onDownload(entry);
                  else confirmDelete(entry);
                },
              }}
            >
              <Button type="text" size="small" icon={<MoreOutlined />} aria-label="更多操作" title="更多操作" data-testid="storage-row-menu" />
            </Dropdown>
          ),
        },
  ];

  const onChange = (pagination: TablePaginationConfig, _filters: unknown, sorter: SorterResult<FileEntry> | SorterResult<FileEntry>[]) => {
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const field = s?.order ? (s.columnKey as SortField) : undefined;
    const sortChanged = field !== props.sortField || (s?.order ?? undefined) !== props.sortOrder;
    props.onQueryChange({
      // A new sort starts again from the first page; paging keeps the sort.
      pageNum: sortChanged ? 1 : (pagination.current ?? 1),
      pageSize: pagination.pageSize ?? props.pageSize,
      sortField: field,
      sortOrder: field ? (s.order as SortOrder) : undefined,
    });
  };

  return (
    <Table<FileEntry>
      data-testid="storage-table"
      rowKey="path"
      tableLayout="fixed"
      columns={columns}
      dataSource={props.entries}
      loading={props.loading}
      onChange={onChange}
      rowSelection={{ selectedRowKeys: props.selectedKeys, onChange: (keys, rows) => props.onSelect(keys as string[], rows) }}
      pagination={{
        current: props.pageNum,
        pageSize: props.pageSize,
        total: props.total,
        showSizeChanger: screens.md,
        simple: !screens.sm,
        showTotal: (total) => `共 ${total} 项`,
      }}
      locale={{ emptyText: props.emptyText }}
      onRow={(entry) => ({ 'data-testid': 'storage-row', 'data-name': entry.name, 'data-type': entry.type }) as HTMLAttributes<HTMLElement>}
    />
  );
}
