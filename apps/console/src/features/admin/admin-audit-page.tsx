import { AUDIT_ACTIONS, type AuditEntry, type AuditPageQuery } from '@suanli/contracts';
import { Button, DatePicker, Input, Select, Typography, type TableColumnsType } from 'antd';
import type { Dayjs } from 'dayjs';
import { ReloadOutlined } from '@ant-design/icons';
import { useSearchParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { ListCard, useFilterWidth } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { pageAudit } from './api';
import { actionLabel, ActorText, ChangeText, targetLabel } from './admin-view';
import { OperatorOnly } from './operator-only';

const TITLE = '审计日志';

/** A day picked → the range the server filters on: from its start to the start of the next day (exclusive). */
const dayStart = (d: Dayjs | null | undefined) => d?.startOf('day').valueOf();
const dayEnd = (d: Dayjs | null | undefined) => d?.startOf('day').add(1, 'day').valueOf();

function Target({ e }: { e: AuditEntry }) {
  return (
    <span style={{ overflowWrap: 'anywhere' }}>
      <Typography.Text type="secondary">{targetLabel(e.targetType)} </Typography.Text>
      {e.targetName || e.targetId}
    </span>
  );
}

function AuditTable() {
  const screens = useBreakpoint();
  const [params] = useSearchParams();
  const list = usePagedList<AuditPageQuery, AuditEntry>({ key: queryKeys.admin.audit, fetch: pageAudit, initial: { target: params.get('target') ?? undefined } });
  const actorWidth = useFilterWidth(180);
  const targetWidth = useFilterWidth(230);
  const actionWidth = useFilterWidth(150);

  const columns: TableColumnsType<AuditEntry> = screens.md
    ? [
        { title: '时间', dataIndex: 'createTime', key: 'time', width: 170, render: (v: number) => formatTime(v) },
        { title: '操作人', key: 'actor', width: 170, render: (_v, e) => <ActorText entry={e} /> },
        { title: '操作', dataIndex: 'action', key: 'action', width: 100, render: (v: string) => <span data-testid="audit-action">{actionLabel(v)}</span> },
        { title: '对象', key: 'target', width: 170, render: (_v, e) => <Target e={e} /> },
        { title: '变更', key: 'change', width: 240, render: (_v, e) => <ChangeText entry={e} /> },
        { title: '原因', dataIndex: 'reason', key: 'reason', width: 160, render: (v: string) => <span style={{ overflowWrap: 'anywhere' }}>{v || '—'}</span> },
        { title: 'IP 地址', dataIndex: 'ip', key: 'ip', width: 130, render: (v: string | null) => <span style={{ fontFamily: MONO }}>{v ?? '—'}</span> },
      ]
    : [
        // A phone: one column holding the whole entry, line by line.
        {
          title: '记录',
          key: 'entry',
          width: 320,
          render: (_v, e) => (
            <div style={{ minWidth: 0, display: 'flex', flexDirection: 'column', gap: 2 }}>
              <div>
                <Typography.Text strong data-testid="audit-action">
                  {actionLabel(e.action)}
                </Typography.Text>{' '}
                <Target e={e} />
              </div>
              <ChangeText entry={e} />
              {e.reason ? <div style={{ overflowWrap: 'anywhere' }}>原因：{e.reason}</div> : null}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
                <ActorText entry={e} /> · {formatTime(e.createTime)}
                {e.ip ? ` · ${e.ip}` : ''}
              </div>
            </div>
          ),
        },
      ];

  return (
    <>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
        <Input.Search allowClear placeholder="操作人用户名" style={{ width: actorWidth }} maxLength={64} onSearch={(v) => list.setFilter('actor', v.trim())} data-testid="audit-actor" />
        <Select<string>
          allowClear
          placeholder="全部操作"
          style={{ width: actionWidth }}
          value={list.filters.action}
          options={AUDIT_ACTIONS.map((a) => ({ label: actionLabel(a), value: a }))}
          onChange={(v) => list.setFilter('action', v)}
          virtual={false}
          data-testid="audit-action-filter"
        />
        <Input.Search
          allowClear
          placeholder="对象（用户名或 ID）"
          style={{ width: targetWidth }}
          maxLength={64}
          defaultValue={params.get('target') ?? undefined}
          onSearch={(v) => list.setFilter('target', v.trim())}
          data-testid="audit-target"
        />
        {screens.sm ? (
          <DatePicker.RangePicker
            placeholder={['开始日期', '结束日期']}
            style={{ width: 260 }}
            onChange={(range: [Dayjs | null, Dayjs | null] | null) => {
              list.setFilter('startTime', dayStart(range?.[0]));
              list.setFilter('endTime', dayEnd(range?.[1]));
            }}
            data-testid="audit-range"
          />
        ) : (
          // Two single pickers: a range picker's two months side by side do not fit a phone.
          <div style={{ display: 'flex', gap: 8, width: '100%' }}>
            <DatePicker placeholder="开始日期" style={{ flex: 1 }} inputReadOnly onChange={(d: Dayjs | null) => list.setFilter('startTime', dayStart(d))} data-testid="audit-start" />
            <DatePicker placeholder="结束日期" style={{ flex: 1 }} inputReadOnly onChange={(d: Dayjs | null) => list.setFilter('endTime', dayEnd(d))} data-testid="audit-end" />
          </div>
        )}
        <Button icon={<ReloadOutlined />} onClick={() => list.list.refetch()} loading={list.list.isFetching} data-testid="audit-refresh">
          刷新
        </Button>
      </div>
      <PagedTable<AuditEntry>
        list={list}
        columns={columns}
        rowData={(e) => ({ 'data-testid': 'audit-row', 'data-id': e.id, 'data-action': e.action, 'data-target': e.targetName })}
        empty={{ filtered: '没有符合条件的记录', none: '还没有运营操作记录', action: { label: '刷新', onClick: () => void list.list.refetch() } }}
      />
    </>
  );
}

/** 运营管理 › 审计日志 (/admin/audit-logs): every operator action, filterable, read-only. */
export function AdminAuditPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="运营人员和服务器命令的每一次操作：谁、在何时、对什么做了什么、变更前后的状态。记录只增不改，任何人都不能修改或删除。">
        <ListCard>
          <AuditTable />
        </ListCard>
      </PageContainer>
    </OperatorOnly>
  );
}
