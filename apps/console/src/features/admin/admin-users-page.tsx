import { ACCOUNT_STATUSES, type AccountStatus, type AdminUser, type AdminUserPageQuery } from '@suanli/contracts';
import { Button, Select, Space, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { ListCard, ListToolbar, useFilterWidth } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { pageUsers } from './api';
import { RoleTags, STATUS_LABELS, StatusTag } from './admin-view';
import { OperatorOnly } from './operator-only';
import { StatusChangeModal } from './status-change-modal';

const TITLE = '用户';
export const userPath = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

function StatusButton({ user, onClick }: { user: AdminUser; onClick: () => void }) {
  return (
    <Button size="small" danger={user.status === 'active'} onClick={onClick} data-testid="admin-user-toggle">
      {user.status === 'active' ? '禁用' : '启用'}
    </Button>
  );
}

function UsersTable() {
  const screens = useBreakpoint();
  const list = usePagedList<AdminUserPageQuery, AdminUser>({ key: queryKeys.admin.users, fetch: pageUsers });
  const statusWidth = useFilterWidth(140);
  const [changing, setChanging] = useState<AdminUser | null>(null);

  const name = (u: AdminUser) => (
    <Link to={userPath(u.id)} style={{ overflowWrap: 'anywhere' }} data-testid="admin-user-link">
      {u.username}
    </Link>
  );
  const columns: TableColumnsType<AdminUser> = screens.md
    ? [
        { title: '用户名', key: 'username', width: 160, render: (_v, u) => name(u) },
        { title: '昵称', dataIndex: 'nickname', key: 'nickname', width: 130, ellipsis: true },
        { title: '手机号', dataIndex: 'phone', key: 'phone', width: 130, render: (v: string | null) => v ?? '—' },
        { title: '邮箱', dataIndex: 'email', key: 'email', width: 220, render: (v: string | null) => <span style={{ overflowWrap: 'anywhere' }}>{v ?? '—'}</span> },
        { title: '角色', dataIndex: 'roles', key: 'roles', width: 110, render: (_v, u) => <RoleTags roles={u.roles} /> },
        { title: '状态', dataIndex: 'status', key: 'status', width: 90, render: (v: AccountStatus) => <StatusTag status={v} /> },
        { title: '注册时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
        { title: '操作', key: 'action', width: 90, fixed: 'right', render: (_v, u) => <StatusButton user={u} onClick={() => setChanging(u)} /> },
      ]
    : [
        // A phone: the name carries nickname, contacts and roles underneath; the state and the action beside it.
        {
          title: '用户',
          key: 'username',
          width: 190,
          render: (_v, u) => (
            <div style={{ minWidth: 0 }}>
              {name(u)}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)', overflowWrap: 'anywhere' }}>
                {[u.nickname, u.phone, u.email].filter(Boolean).join(' · ')}
              </div>
              {u.roles.includes('operator') ? (
                <div style={{ marginTop: 4 }}>
                  <RoleTags roles={u.roles} />
                </div>
              ) : null}
            </div>
          ),
        },
        {
          title: '状态',
          key: 'status',
          width: 96,
          render: (_v, u) => (
            <Space orientation="vertical" size={6}>
              <StatusTag status={u.status} />
              <StatusButton user={u} onClick={() => setChanging(u)} />
            </Space>
          ),
        },
      ];

  return (
    <>
      <ListToolbar list={list} search={{ placeholder: '用户名、昵称、手机号或邮箱', testId: 'admin-user-search' }} refreshTestId="admin-user-refresh">
        <Select<AccountStatus>
          allowClear
          placeholder="全部状态"
          style={{ width: statusWidth }}
          value={list.filters.status}
          options={ACCOUNT_STATUSES.map((s) => ({ label: STATUS_LABELS[s], value: s }))}
          onChange={(v) => list.setFilter('status', v)}
          virtual={false}
          data-testid="admin-user-status-filter"
        />
      </ListToolbar>
      <PagedTable<AdminUser>
        list={list}
        columns={columns}
        rowData={(u) => ({ 'data-testid': 'admin-user-row', 'data-id': u.id, 'data-username': u.username, 'data-status': u.status })}
        empty={{ filtered: '没有符合条件的用户', none: '还没有用户注册', action: { label: '刷新', onClick: () => void list.list.refetch() } }}
      />
      <StatusChangeModal user={changing} onClose={() => setChanging(null)} />
    </>
  );
}

/** 运营管理 › 用户 (/admin/users): find accounts, open one, disable or enable it (with a confirmation). */
export function AdminUsersPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer
        title={TITLE}
        description="按用户名、昵称、手机号或邮箱查找账号；禁用后该账号的所有登录会话立即结束。每次操作都记入审计日志。"
      >
        <ListCard>
          <UsersTable />
        </ListCard>
      </PageContainer>
    </OperatorOnly>
  );
}
