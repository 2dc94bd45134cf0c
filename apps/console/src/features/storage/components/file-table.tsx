import { DeleteOutlined, DownloadOutlined, EditOutlined, FileOutlined, FolderFilled } from '@ant-design/icons';
import { formatFileSize, type FileEntry } from '@suanli/contracts';
import { Button, Flex, Popconfirm, Table, Typography } from 'antd';
import type { ColumnsType, SorterResult } from 'antd/es/table/interface';
import type { TablePaginationConfig } from 'antd';
import dayjs from 'dayjs';
import type { HTMLAttributes, ReactNode } from 'react';
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

/** The directory listing: sorting and paging happen on the server, this only draws and reports. */
export function FileTable(props: FileTableProps) {
  const { sortField, sortOrder } = props;
  const sorted = (field: SortField) => (sortField === field ? (sortOrder ?? null) : null);
  const columns: ColumnsType<FileEntry> = [
    {
      title: '名称',
      dataIndex: 'name',
      key: 'name',
      sorter: true,
      sortOrder: sorted('name'),
      ellipsis: true,
      render: (name: string, entry) => (
        <Typography.Link data-testid="storage-open" onClick={() => props.onOpen(entry)} title={name}>
          <Flex align="center" gap={8} component="span">
            {entry.type === 'dir' ? <FolderFilled style={{ color: '#f7c244', fontSize: 18 }} /> : <FileOutlined style={{ color: '#8c8c8c', fontSize: 16 }} />}
            <span style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>{name}</span>
          </Flex>
        </Typography.Link>
      ),
    },
    {
      title: '大小',
      dataIndex: 'size',
      key: 'size',
      width: 140,
      sorter: true,
      sortOrder: sorted('size'),
      render: (size: number, entry) => (entry.type === 'dir' ? '-' : formatFileSize(size)),
    },
    {
      title: '修改时间',
      dataIndex: 'updateTime',
      key: 'updateTime',
      width: 190,
      sorter: true,
      sortOrder: sorted('updateTime'),
      render: (ms: number) => formatTime(ms),
    },
    {
      title: '操作',
      key: 'actions',
      width: 260,
      render: (_: unknown, entry) => (
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
      columns={columns}
      dataSource={props.entries}
      loading={props.loading}
      onChange={onChange}
      rowSelection={{ selectedRowKeys: props.selectedKeys, onChange: (keys, rows) => props.onSelect(keys as string[], rows) }}
      pagination={{
        current: props.pageNum,
        pageSize: props.pageSize,
        total: props.total,
        showSizeChanger: true,
        showTotal: (total) => `共 ${total} 项`,
      }}
      locale={{ emptyText: props.emptyText }}
      onRow={(entry) => ({ 'data-testid': 'storage-row', 'data-name': entry.name, 'data-type': entry.type }) as HTMLAttributes<HTMLElement>}
    />
  );
}
