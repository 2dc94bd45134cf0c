import { ArrowLeftOutlined } from '@ant-design/icons';
import type { AdminUserDetail, AdminUserTask, AuditEntry, ClusterAccount } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Descriptions, Result, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { StateTag } from '../../shared/task/task-view';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { useSubCenters } from '../storage/hooks';
import { getUser, pageAudit } from './api';
import { actionLabel, ActorText, ChangeText, RoleTags, StatusTag } from './admin-view';
import { OperatorOnly } from './operator-only';
import { StatusChangeModal } from './status-change-modal';
import { TASK_KIND_LABELS as KIND_LABELS, TaskStopModal } from './task-stop-modal';

const TITLE = '用户详情';

function ClusterAccounts({ accounts }: { accounts: ClusterAccount[] }) {
  const screens = useBreakpoint();
  const columns: TableColumnsType<ClusterAccount> = [
    { title: '分中心', dataIndex: 'subCenterName', key: 'center', width: screens.sm ? 150 : 120 },
    { title: '集群账号', dataIndex: 'account', key: 'account', width: screens.sm ? 120 : 100, render: (v: string) => <span style={{ fontFamily: MONO }}>{v}</span> },
    ...(screens.sm
      ? [
          { title: 'UID', dataIndex: 'uid', key: 'uid', width: 80 },
          { title: '主目录', dataIndex: 'homeDir', key: 'home', width: 200, render: (v: string) => <span style={{ fontFamily: MONO, overflowWrap: 'anywhere' }}>{v}</span> },
        ]
      : []),
    { title: '状态', dataIndex: 'status', key: 'status', width: 76, render: (v: string) => (v === 'active' ? <Tag color="green">正常</Tag> : <Tag color="red">已停用</Tag>) },
  ];
  return (
    <Table<ClusterAccount>
      rowKey="subCenterId"
      size="small"
      columns={columns}
      dataSource={accounts}
      pagination={false}
      tableLayout="fixed"
      scroll={{ x: columns.reduce((s, c) => s + Number(c.width ?? 0), 0) }}
      locale={{ emptyText: '尚未在任何分中心开通集群账号（首次使用某个分中心时自动开通）' }}
      onRow={(a) => ({ 'data-testid': 'admin-cluster-account', 'data-center': a.subCenterId }) as object}
    />
  );
}

function RunningTasks({ tasks, onStop }: { tasks: AdminUserTask[]; onStop: (t: AdminUserTask) => void }) {
  const screens = useBreakpoint();
  const centers = useSubCenters();
  const center = (id: string) => centers.data?.find((c) => c.id === id);
  const cards = (t: AdminUserTask) => {
    const card = center(t.subCenterId)?.cardTypes.find((c) => c.id === t.cardTypeId)?.name ?? t.cardTypeId;
    return `${card} × ${t.cardNum * Math.max(1, t.nodeNum)}`;
  };
  const columns: TableColumnsType<AdminUserTask> = [
    {
      title: '任务',
      key: 'name',
      width: 180,
      render: (_v, t) => (
        <div style={{ minWidth: 0 }}>
          <div style={{ overflowWrap: 'anywhere' }}>{t.name}</div>
          <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>{KIND_LABELS[t.kind] ?? t.kind}</div>
        </div>
      ),
    },
    { title: '状态', dataIndex: 'state', key: 'state', width: 90, render: (_v, t) => <StateTag state={t.state} testId="admin-task-state" /> },
    ...(screens.sm
      ? [
          { title: '分中心', key: 'center', width: 140, render: (_v: unknown, t: AdminUserTask) => center(t.subCenterId)?.name ?? t.subCenterId },
          { title: '卡型 × 卡数', key: 'cards', width: 170, render: (_v: unknown, t: AdminUserTask) => cards(t) },
          { title: '开始时间', dataIndex: 'startTime', key: 'start', width: 170, render: (v: number | null) => formatTime(v) },
        ]
      : []),
    {
      title: '操作',
      key: 'actions',
      width: 76,
      // A task already 停止中 (its owner, metering or another operator asked) has nothing left to stop.
      render: (_v, t) => (
        <Button size="small" danger disabled={t.state === 'STOPPING'} onClick={() => onStop(t)} data-testid="admin-task-stop">
          停止
        </Button>
      ),
    },
  ];
  return (
    <Table<AdminUserTask>
      rowKey="id"
      size="small"
      columns={columns}
      dataSource={tasks}
      pagination={false}
      tableLayout="fixed"
      scroll={{ x: columns.reduce((s, c) => s + Number(c.width ?? 0), 0) }}
      locale={{ emptyText: '当前没有占用算力卡的任务' }}
      onRow={(t) => ({ 'data-testid': 'admin-running-task', 'data-id': t.id, 'data-state': t.state }) as object}
    />
  );
}

/** The account's entries in the audit log (who disabled or enabled it, roles given), newest first. */
function History({ userId }: { userId: string }) {
  const screens = useBreakpoint();
  const query = { target: userId, pageNum: 1, pageSize: 10 };
  const entries = useQuery({ queryKey: queryKeys.admin.audit(query), queryFn: () => pageAudit(query) });
  const columns: TableColumnsType<AuditEntry> = screens.sm
    ? [
        { title: '时间', dataIndex: 'createTime', key: 'time', width: 170, render: (v: number) => formatTime(v) },
        { title: '操作', dataIndex: 'action', key: 'action', width: 100, render: (v: string) => actionLabel(v) },
        { title: '操作人', key: 'actor', width: 150, render: (_v, e) => <ActorText entry={e} /> },
        { title: '变更', key: 'change', width: 200, render: (_v, e) => <ChangeText entry={e} /> },
        { title: '原因', dataIndex: 'reason', key: 'reason', width: 160, render: (v: string) => <span style={{ overflowWrap: 'anywhere' }}>{v || '—'}</span> },
      ]
    : [
        // A phone: one entry per row, line by line (as 审计日志 shows it).
        {
          title: '记录',
          key: 'entry',
          width: 290,
          render: (_v, e) => (
            <div style={{ minWidth: 0, display: 'flex', flexDirection: 'column', gap: 2 }}>
              <Typography.Text strong>{actionLabel(e.action)}</Typography.Text>
              <ChangeText entry={e} />
              {e.reason ? <div style={{ overflowWrap: 'anywhere' }}>原因：{e.reason}</div> : null}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
                <ActorText entry={e} /> · {formatTime(e.createTime)}
              </div>
            </div>
          ),
        },
      ];
  return (
    <Table<AuditEntry>
      rowKey="id"
      size="small"
      loading={entries.isLoading}
      columns={columns}
      dataSource={entries.data?.list ?? []}
      pagination={false}
      tableLayout="fixed"
      scroll={{ x: columns.reduce((sum, c) => sum + Number(c.width ?? 0), 0) }}
      locale={{ emptyText: '暂无操作记录' }}
      onRow={(e) => ({ 'data-testid': 'admin-user-history-row', 'data-action': e.action }) as object}
    />
  );
}

function Detail({ user }: { user: AdminUserDetail }) {
  const screens = useBreakpoint();
  const [changing, setChanging] = useState(false);
  const [stopping, setStopping] = useState<AdminUserTask | null>(null);
  return (
    <>
      <Card
        title={
          <span style={{ overflowWrap: 'anywhere' }} data-testid="admin-user-title">
            {user.username}
          </span>
        }
        extra={
          <Button danger={user.status === 'active'} type={user.status === 'active' ? 'default' : 'primary'} onClick={() => setChanging(true)} data-testid="admin-user-toggle">
            {user.status === 'active' ? '禁用账号' : '启用账号'}
          </Button>
        }
      >
        <Descriptions column={screens.lg ? 3 : screens.sm ? 2 : 1} size="small" data-testid="admin-user-info">
          <Descriptions.Item label="昵称">{user.nickname}</Descriptions.Item>
          <Descriptions.Item label="状态">
            <StatusTag status={user.status} />
          </Descriptions.Item>
          <Descriptions.Item label="角色">
            <RoleTags roles={user.roles} all />
          </Descriptions.Item>
          <Descriptions.Item label="手机号">{user.phone ?? '—'}</Descriptions.Item>
          <Descriptions.Item label="邮箱">
            <span style={{ overflowWrap: 'anywhere' }}>{user.email ?? '—'}</span>
          </Descriptions.Item>
          <Descriptions.Item label="注册时间">{formatTime(user.createTime)}</Descriptions.Item>
          <Descriptions.Item label="用户 ID">
            {/* An identifier operators quote to each other and to support, shown as code beside the name. */}
            <Typography.Text code copyable={{ text: user.id, tooltips: ['复制', '已复制'] }} style={{ fontFamily: MONO }}>
              {user.id}
            </Typography.Text>
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <Card title="集群账号" size="small">
        <ClusterAccounts accounts={user.clusterAccounts} />
      </Card>
      <Card title="运行中的任务" size="small">
        <RunningTasks tasks={user.runningTasks} onStop={setStopping} />
      </Card>
      <Card title="操作记录" size="small" extra={<Link to={`/admin/audit-logs?target=${encodeURIComponent(user.id)}`}>在审计日志中查看</Link>}>
        <History userId={user.id} />
      </Card>
      <StatusChangeModal user={changing ? user : null} onClose={() => setChanging(false)} />
      <TaskStopModal task={stopping} owner={user.username} onClose={() => setStopping(null)} />
    </>
  );
}

/** How often the page asks again while a task is 停止中. */
const STOPPING_REFRESH_MS = 2_000;

/** 运营管理 › 用户 › 用户详情 (/admin/users/:id). */
export function AdminUserDetailPage() {
  const { id = '' } = useParams();
  return (
    <OperatorOnly title={TITLE}>
      <DetailPage id={id} />
    </OperatorOnly>
  );
}

function DetailPage({ id }: { id: string }) {
  const user = useQuery({
    queryKey: queryKeys.admin.user(id),
    queryFn: () => getUser(id),
    retry: false,
    // A task being stopped (停止中) leaves the list once its scheduler confirms; the operator's socket carries no
    // event of another user's task, so the page asks again until none is stopping.
    refetchInterval: (q) => (q.state.data?.runningTasks.some((t) => t.state === 'STOPPING') ? STOPPING_REFRESH_MS : false),
  });
  const back = (
    <Link to="/admin/users">
      <Button icon={<ArrowLeftOutlined />}>返回用户列表</Button>
    </Link>
  );
  return (
    <PageContainer title={TITLE} extra={back}>
      {user.data ? (
        <Detail user={user.data} />
      ) : user.isError ? (
        <Card>
          <Result status="warning" title="无法打开此用户" subTitle={user.error?.message || '用户不存在'} />
        </Card>
      ) : (
        <Card loading />
      )}
    </PageContainer>
  );
}
