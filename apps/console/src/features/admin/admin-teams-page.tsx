import type { AdminTeam, AdminTeamPageQuery } from '@suanli/contracts';
import { Space, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { ListCard, ListToolbar } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { pageTeams } from './api';
import { userPath } from './admin-users-page';
import { OperatorOnly } from './operator-only';
import { TeamDissolveModal } from './team-dissolve-modal';

const TITLE = '团队';
const muted = { fontSize: 12, color: 'rgba(0,0,0,0.45)', overflowWrap: 'anywhere' } as const;

/** 算力发放 for this team, its name and owner filled in (names are unique per owner only). */
const grantPath = (t: AdminTeam) => `/admin/grants?${new URLSearchParams({ teamName: t.name, teamOwner: t.ownerUsername })}`;

function Owner({ team }: { team: AdminTeam }) {
  return (
    <Link to={userPath(team.ownerId)} style={{ overflowWrap: 'anywhere' }} data-testid="admin-team-owner">
      {team.ownerUsername}
      {team.ownerNickname && team.ownerNickname !== team.ownerUsername ? `（${team.ownerNickname}）` : ''}
    </Link>
  );
}

function Name({ team }: { team: AdminTeam }) {
  return (
    <div style={{ minWidth: 0 }}>
      <div style={{ overflowWrap: 'anywhere' }} data-testid="admin-team-name">
        {team.name}
      </div>
      {team.description ? <div style={muted}>{team.description}</div> : null}
    </div>
  );
}

function Actions({ team, onDissolve }: { team: AdminTeam; onDissolve: (t: AdminTeam) => void }) {
  return (
    <Space size={12} wrap>
      <Link to={grantPath(team)} data-testid="admin-team-grant">
        发放算力
      </Link>
      <Typography.Link type="danger" onClick={() => onDissolve(team)} data-testid="admin-team-dissolve">
        解散
      </Typography.Link>
    </Space>
  );
}

function TeamsTable() {
  const screens = useBreakpoint();
  const list = usePagedList<AdminTeamPageQuery, AdminTeam>({ key: queryKeys.admin.teams, fetch: pageTeams });
  const [dissolving, setDissolving] = useState<AdminTeam | null>(null);
  const actions = (t: AdminTeam) => <Actions team={t} onDissolve={setDissolving} />;
  const columns: TableColumnsType<AdminTeam> = screens.md
    ? [
        { title: '团队名称', key: 'name', width: 260, render: (_v, t) => <Name team={t} /> },
        { title: '所有者', key: 'owner', width: 200, render: (_v, t) => <Owner team={t} /> },
        { title: '成员数', dataIndex: 'memberCount', key: 'memberCount', width: 90 },
        { title: '创建时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
        { title: '操作', key: 'action', width: 150, fixed: 'right', render: (_v, t) => actions(t) },
      ]
    : [
        // A phone: the owner, size and age under the name; the action beside it.
        {
          title: '团队',
          key: 'name',
          render: (_v, t) => (
            <div style={{ minWidth: 0 }}>
              <Name team={t} />
              <div style={muted}>
                所有者 <Owner team={t} /> · {t.memberCount} 名成员 · {formatTime(t.createTime)}
              </div>
            </div>
          ),
        },
        { title: '操作', key: 'action', width: 88, render: (_v, t) => actions(t) },
      ];
  return (
    <>
      <ListToolbar list={list} search={{ placeholder: '团队名称或所有者用户名', testId: 'admin-team-search' }} refreshTestId="admin-team-refresh" />
      <PagedTable<AdminTeam>
        list={list}
        columns={columns}
        rowData={(t) => ({ 'data-testid': 'admin-team-row', 'data-id': t.id })}
        empty={{ filtered: '没有符合条件的团队', none: '还没有用户创建团队', action: { label: '刷新', onClick: () => void list.list.refetch() } }}
      />
      <TeamDissolveModal team={dissolving} onClose={() => setDissolving(null)} />
    </>
  );
}

/**
 * 运营管理 › 团队 (/admin/teams): every team with its owner and size; 发放算力 opens 算力发放 for that team, 解散
 * dissolves it (with a reason, audited; its members are told).
 */
export function AdminTeamsPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="按团队名称或所有者用户名查找团队；团队的成员与算力由团队所有者和管理员在团队管理中维护。">
        <ListCard>
          <TeamsTable />
        </ListCard>
      </PageContainer>
    </OperatorOnly>
  );
}
