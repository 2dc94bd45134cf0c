import { MESSAGE_TYPE_LABELS, type Message, type MessageType } from '@suanli/contracts';
import { Badge, Button, Table, Tag, Typography, type TableColumnsType, type TablePaginationConfig } from 'antd';
import { dayjs } from '../../../shared/dayjs';
import type { HTMLAttributes } from 'react';

const TYPE_COLORS: Record<MessageType, string> = {
  system: 'blue',
  task: 'cyan',
  order: 'gold',
  workorder: 'purple',
  team: 'green',
};

interface MessageTableProps {
  rows: Message[];
  total: number;
  pageNum: number;
  pageSize: number;
  loading: boolean;
  selectedIds: string[];
  onSelect: (ids: string[]) => void;
  onPage: (pageNum: number, pageSize: number) => void;
  onMarkOne: (id: string) => void;
  /** A row was opened: its content is now visible. */
  onExpand: (message: Message) => void;
}

export function MessageTable(props: MessageTableProps) {
  const columns: TableColumnsType<Message> = [
    {
      title: '状态',
      dataIndex: 'viewed',
      key: 'viewed',
      width: 90,
      render: (viewed: boolean) => (viewed ? <Badge status="default" text="已读" /> : <Badge status="processing" text="未读" />),
    },
    {
      title: '标题',
      dataIndex: 'title',
      key: 'title',
      ellipsis: true,
      render: (title: string, row) => (
        <Typography.Text strong={!row.viewed} data-testid="msg-title">
          {title}
        </Typography.Text>
      ),
    },
    {
      title: '类型',
      dataIndex: 'type',
      key: 'type',
      width: 110,
      render: (t: MessageType) => <Tag color={TYPE_COLORS[t]}>{MESSAGE_TYPE_LABELS[t] ?? t}</Tag>,
    },
    {
      title: '接收时间',
      dataIndex: 'createTime',
      key: 'createTime',
      width: 180,
      render: (v: number) => dayjs(v).format('YYYY-MM-DD HH:mm:ss'),
    },
    {
      title: '操作',
      key: 'action',
      width: 110,
      render: (_v, row) =>
        row.viewed ? (
          <Typography.Text type="secondary">—</Typography.Text>
        ) : (
          <Button type="link" size="small" onClick={() => props.onMarkOne(row.id)} data-testid="msg-mark-one">
            标为已读
          </Button>
        ),
    },
  ];

  const pagination: TablePaginationConfig = {
    current: props.pageNum,
    pageSize: props.pageSize,
    total: props.total,
    showSizeChanger: true,
    pageSizeOptions: [10, 20, 50, 100],
    showTotal: (total) => `共 ${total} 条`,
    onChange: props.onPage,
  };

  return (
    <Table<Message>
      rowKey="id"
      columns={columns}
      dataSource={props.rows}
      loading={props.loading}
      pagination={pagination}
      scroll={{ x: 720 }}
      rowSelection={{
        selectedRowKeys: props.selectedIds,
        onChange: (keys) => props.onSelect(keys.map(String)),
        getCheckboxProps: (row) => ({ disabled: row.viewed }),
      }}
      expandable={{
        expandedRowRender: (row) => (
          <Typography.Paragraph style={{ margin: 0, whiteSpace: 'pre-wrap' }} data-testid="msg-content">
            {row.content}
          </Typography.Paragraph>
        ),
        onExpand: (expanded, row) => {
          if (expanded) props.onExpand(row);
        },
      }}
      onRow={(row) =>
        ({ 'data-testid': 'msg-row', 'data-id': row.id, 'data-viewed': String(row.viewed) }) as HTMLAttributes<HTMLElement>
      }
      locale={{ emptyText: '暂无消息' }}
    />
  );
}
