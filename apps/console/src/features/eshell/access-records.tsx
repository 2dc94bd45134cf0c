import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AccessSession, AccessSessionAdmin, AccessSessionKind, AccessSessionQuery } from '@suanli/contracts';
import { Card, Empty, Segmented, Space, Switch, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState, type HTMLAttributes } from 'react';
import { Link } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatDuration, formatTime } from '../../shared/time';
import { getCurrentUser } from '../user-center/api';
import { pageAllShellSessions, pageShellSessions } from './api';

const PAGE_SIZE = 10;

/**
 * Why a session ended, as the server records it (access-log `close(id, reason)`): the web shell ends with
 * closed (the browser hung up), exited (`exit` in the shell), idle, revoked (the sign-in ended), error,
 * refused, server (the gateway stopped), gateway-lost (the gateway died and another ended the record at
 * its last renewal); the develop-task proxy with stopped (the task no longer runs) or revoked.
 */
export const END_REASON_LABELS: Record<string, string> = {
  closed: '连接关闭',
  exited: '终端退出',
  idle: '空闲超时',
  revoked: '登录失效',
  error: '连接出错',
  refused: '连接被拒绝',
  server: '服务重启',
  stopped: '任务已结束',
  'gateway-lost': '网关已停止，会话已结束',
};

/** The Chinese label of an end reason: '—' while open, '已结束' for a reason this console does not know. */
export function endReasonLabel(s: Pick<AccessSession, 'endTime' | 'endReason'>): string {
  if (s.endTime == null && !s.endReason) return '—';
  return END_REASON_LABELS[s.endReason] ?? '已结束';
}

const KIND_LABELS: Record<AccessSessionKind, string> = { shell: '终端', proxy: '开发环境' };
const TRANSPORT_LABELS: Record<string, string> = { ssh: 'SSH', local: '本机' };
type KindFilter = AccessSessionKind | 'all';

function columns(all: boolean, now: number): TableColumnsType<AccessSessionAdmin> {
  const user: TableColumnsType<AccessSessionAdmin> = all ? [{ title: '用户', dataIndex: 'userId', key: 'userId', width: 170, ellipsis: true }] : [];
  const ip: TableColumnsType<AccessSessionAdmin> = all ? [{ title: '来源 IP', dataIndex: 'clientIp', key: 'clientIp', width: 130, render: (v: string) => v || '—' }] : [];
  return [
    ...user,
    {
      title: '类型',
      dataIndex: 'kind',
      key: 'kind',
      width: 90,
      render: (v: AccessSessionKind) => <Tag color={v === 'proxy' ? 'purple' : 'blue'}>{KIND_LABELS[v] ?? v}</Tag>,
    },
    { title: '分中心', dataIndex: 'centerName', key: 'centerName', width: 140, ellipsis: true },
    { title: '集群账号', dataIndex: 'account', key: 'account', width: 120, ellipsis: true },
    {
      title: '目标',
      dataIndex: 'target',
      key: 'target',
      width: 180,
      ellipsis: true,
      render: (v: string, r) =>
        r.kind === 'proxy' ? (
          <Link to={`/training/detail/develop/${encodeURIComponent(v)}`} title={v} data-testid="eshell-session-task">
            {v}
          </Link>
        ) : (
          (TRANSPORT_LABELS[v] ?? v)
        ),
    },
    { title: '开始时间', dataIndex: 'startTime', key: 'startTime', width: 160, render: (v: number) => formatTime(v) },
    {
      title: '结束时间',
      dataIndex: 'endTime',
      key: 'endTime',
      width: 160,
      render: (v: number | null) => (v == null ? <Tag color="green">进行中</Tag> : formatTime(v)),
    },
    { title: '时长', key: 'duration', width: 100, render: (_: unknown, r) => formatDuration((r.endTime ?? now) - r.startTime) },
    { title: '结束原因', dataIndex: 'endReason', key: 'endReason', width: 110, render: (_: string, r) => endReasonLabel(r) },
    ...ip,
  ];
}

/**
 * 访问记录 on the Shell工具 page: the caller's own shell and develop-environment sessions (who, center,
 * account, target, start, end, why it ended), filtered by type and paged by the server, newest first.
 * Operators can switch to 全部用户 (every user's, with the user and the source address).
 */
export function AccessRecords() {
  const screens = useBreakpoint();
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 60_000 });
  const operator = me.data?.roles.includes('operator') ?? false;
  const [everyone, setEveryone] = useState(false);
  const all = operator && everyone;
  const [kind, setKind] = useState<KindFilter>('all');
  const [pageNum, setPageNum] = useState(1);
  const query: AccessSessionQuery = { pageNum, pageSize: PAGE_SIZE, ...(kind === 'all' ? {} : { kind }) };
  const records = useQuery({
    queryKey: all ? queryKeys.eshell.allSessions(query) : queryKeys.eshell.sessions(query),
    queryFn: () => (all ? pageAllShellSessions(query) : pageShellSessions(query)),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  const rows = (records.data?.list ?? []) as AccessSessionAdmin[];
  return (
    <Card title="访问记录" size="small" data-testid="eshell-records" styles={{ body: { display: 'flex', flexDirection: 'column', gap: 12 } }}>
      <Space wrap size={[16, 8]}>
        <Segmented<KindFilter>
          value={kind}
          onChange={(v) => {
            setKind(v);
            setPageNum(1);
          }}
          options={[
            { value: 'all', label: '全部类型' },
            { value: 'shell', label: '终端' },
            { value: 'proxy', label: '开发环境' },
          ]}
          aria-label="按类型筛选"
          data-testid="eshell-sessions-kind"
        />
        {operator ? (
          <Space size={8}>
            <Switch
              checked={everyone}
              onChange={(on) => {
                setEveryone(on);
                setPageNum(1);
              }}
              aria-label="全部用户"
              data-testid="eshell-sessions-all"
            />
            <Typography.Text>全部用户</Typography.Text>
          </Space>
        ) : null}
      </Space>
      <Table<AccessSessionAdmin>
        rowKey="id"
        size="small"
        data-testid="eshell-sessions"
        loading={records.isLoading}
        columns={columns(all, Date.now())}
        dataSource={rows}
        tableLayout="fixed"
        // Wider than a phone: the table scrolls sideways inside the card, the page does not widen.
        scroll={{ x: all ? 1360 : 1060 }}
        onRow={(r) => ({ 'data-testid': 'eshell-session-row', 'data-id': r.id, 'data-kind': r.kind, 'data-open': String(r.endTime == null) }) as HTMLAttributes<HTMLElement>}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={kind === 'all' ? '暂无访问记录' : '没有符合条件的访问记录'} /> }}
        pagination={{
          current: pageNum,
          pageSize: PAGE_SIZE,
          total: records.data?.total ?? 0,
          onChange: setPageNum,
          showSizeChanger: false,
          simple: !screens.sm,
          showTotal: screens.sm ? (total) => `共 ${total} 条` : undefined,
          hideOnSinglePage: true,
        }}
      />
    </Card>
  );
}
