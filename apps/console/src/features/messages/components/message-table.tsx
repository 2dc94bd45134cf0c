import { MESSAGE_TYPE_LABELS, TEAM_INVITATION_BUSINESS_TYPE, type Message, type MessageType } from '@suanli/contracts';
import { CheckOutlined } from '@ant-design/icons';
import { Badge, Button, Flex, Table, Tag, Typography, type TableColumnsType, type TablePaginationConfig } from 'antd';
import { dayjs } from '../../../shared/dayjs';
import { useBreakpoint } from '../../../shared/hooks/use-breakpoint';
import type { HTMLAttributes } from 'react';
import { Link } from 'react-router';
import { InvitationAnswer } from '../../team/invitation-answer';
import { messageLink } from '../message-link';

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
  /** A message was opened (its row expanded, or its title or 查看详情 followed): it is read now. */
  onOpen: (message: Message) => void;
}

const formatTime = (v: number) => dayjs(v).format('YYYY-MM-DD HH:mm:ss');

/**
 * From lg (992 px) up: 状态, 标题, 类型, 接收时间 and 操作 as columns; from md (768 px) the time moves into a
 * line under the title. Narrower, the table keeps only the title: read state, type and time go under it
 * and 标为已读 becomes an icon button, so a phone shows the titles without scrolling sideways.
 */
export function MessageTable(props: MessageTableProps) {
  const screens = useBreakpoint();
  const wide = screens.md;
  const columns: TableColumnsType<Message> = [
    {
      title: '状态',
      dataIndex: 'viewed',
      key: 'viewed',
      width: 90,
      responsive: ['md'],
      render: (viewed: boolean) => (viewed ? <Badge status="default" text="已读" /> : <Badge status="processing" text="未读" />),
    },
    {
      title: '标题',
      dataIndex: 'title',
      key: 'title',
      ellipsis: { showTitle: false },
      render: (title: string, row) => {
        const link = messageLink(row);
        return (
          <Flex vertical gap={2} style={{ minWidth: 0 }}>
            <Typography.Text
              strong={!row.viewed}
              ellipsis={wide}
              title={title}
              // On a phone (no hover to reveal a cut title) the whole title wraps.
              style={wide ? undefined : { whiteSpace: 'normal', overflowWrap: 'anywhere' }}
              data-testid="msg-title"
            >
              {!wide && !row.viewed && <Badge status="processing" style={{ marginRight: 6 }} />}
              {link ? (
                // The title opens what the message is about, as 查看详情 does (and reads it).
                <Link to={link} onClick={() => props.onOpen(row)} data-testid="msg-title-link">
                  {title}
                </Link>
              ) : (
                title
              )}
            </Typography.Text>
            {!screens.lg && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="msg-meta">
                {wide ? formatTime(row.createTime) : `${MESSAGE_TYPE_LABELS[row.type] ?? row.type} · ${formatTime(row.createTime)}`}
              </Typography.Text>
            )}
          </Flex>
        );
      },
    },
    {
      title: '类型',
      dataIndex: 'type',
      key: 'type',
      width: 110,
      responsive: ['md'],
      render: (t: MessageType) => <Tag color={TYPE_COLORS[t]}>{MESSAGE_TYPE_LABELS[t] ?? t}</Tag>,
    },
    {
      title: '接收时间',
      dataIndex: 'createTime',
      key: 'createTime',
      width: 180,
      responsive: ['lg'],
      render: (v: number) => formatTime(v),
    },
    {
      title: wide ? '操作' : '',
      key: 'action',
      width: wide ? 110 : 44,
      render: (_v, row) =>
        row.viewed ? (
          wide && <Typography.Text type="secondary">—</Typography.Text>
        ) : wide ? (
          <Button type="link" size="small" onClick={() => props.onMarkOne(row.id)} data-testid="msg-mark-one">
            标为已读
          </Button>
        ) : (
          <Button
            type="text"
            size="small"
            icon={<CheckOutlined />}
            aria-label="标为已读"
            title="标为已读"
            onClick={() => props.onMarkOne(row.id)}
            data-testid="msg-mark-one"
          />
        ),
    },
  ];

  const pagination: TablePaginationConfig = {
    current: props.pageNum,
    pageSize: props.pageSize,
    total: props.total,
    showSizeChanger: wide,
    simple: !screens.sm,
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
      tableLayout="fixed"
      rowSelection={{
        selectedRowKeys: props.selectedIds,
        onChange: (keys) => props.onSelect(keys.map(String)),
        getCheckboxProps: (row) => ({ disabled: row.viewed }),
      }}
      expandable={{
        expandedRowRender: (row) => {
          const to = messageLink(row);
          return (
            <>
              <Typography.Paragraph style={{ margin: 0, whiteSpace: 'pre-wrap' }} data-testid="msg-content">
                {row.content}
              </Typography.Paragraph>
              {row.businessType === TEAM_INVITATION_BUSINESS_TYPE && row.businessId ? (
                <div style={{ marginTop: 8 }}>
                  <InvitationAnswer invitationId={row.businessId} />
                </div>
              ) : (
                to && (
                  <Link to={to} onClick={() => props.onOpen(row)} data-testid="msg-open">
                    查看详情
                  </Link>
                )
              )}
            </>
          );
        },
        onExpand: (expanded, row) => {
          if (expanded) props.onOpen(row);
        },
      }}
      onRow={(row) =>
        ({ 'data-testid': 'msg-row', 'data-id': row.id, 'data-viewed': String(row.viewed) }) as HTMLAttributes<HTMLElement>
      }
      locale={{ emptyText: '暂无消息' }}
    />
  );
}
