import { PlusOutlined } from '@ant-design/icons';
import { WORKORDER_TYPES, type WorkOrder, type WorkOrderPageQuery, type WorkOrderState, type WorkOrderType } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Select, Space, Tabs, Tag, Typography, type TableColumnsType } from 'antd';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useDict } from '../../app/dicts';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { ListCard, ListToolbar, useFilterWidth } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { getCurrentUser } from '../user-center/api';
import { pageWorkOrders } from './api';
import { WorkOrderCreateModal, type WorkOrderStart } from './workorder-create-modal';
import { awaitsOwner, detailPath, StateTag } from './workorder-view';

type Scope = NonNullable<WorkOrderPageQuery['scope']>;

function AwaitingBadge() {
  return (
    <Tag color="volcano" style={{ marginInlineEnd: 0 }} data-testid="wo-awaiting">
      待您回复
    </Tag>
  );
}

/** One tab's list: the caller's work orders, or (operators) everyone's. */
function WorkOrderTable({ scope, onCreate }: { scope: Scope; onCreate: () => void }) {
  const screens = useBreakpoint();
  const states = useDict('workorder_states');
  const types = useDict('workorder_types');
  const list = usePagedList<WorkOrderPageQuery, WorkOrder>({ key: queryKeys.workorder.list, fetch: pageWorkOrders, fixed: { scope } });
  const stateWidth = useFilterWidth(160);
  // 全部工单 needs no timer: every new work order and every change reaches operators as `workorder.changed`.
  const refetch = list.list.refetch;
  const mine = scope === 'mine';

  const title = (row: WorkOrder) => (
    <Link to={detailPath(row.id)} style={{ overflowWrap: 'anywhere' }} data-testid="wo-title-link">
      {row.title}
    </Link>
  );

  const columns: TableColumnsType<WorkOrder> = screens.sm
    ? [
        { title: '工单编号', dataIndex: 'orderNo', key: 'orderNo', width: 170, render: (v: string) => <span style={{ fontFamily: MONO }} data-testid="wo-no">{v}</span> },
        {
          title: '标题',
          key: 'title',
          width: 280,
          render: (_v, row) => (
            <Space size={[8, 4]} wrap>
              {title(row)}
              {mine && awaitsOwner(row) ? <AwaitingBadge /> : null}
            </Space>
          ),
        },
        { title: '类型', dataIndex: 'type', key: 'type', width: 110, render: (v: string) => types.labels[v] ?? v },
        { title: '状态', dataIndex: 'state', key: 'state', width: 100, render: (v: WorkOrderState) => <StateTag state={v} labels={states.labels} /> },
        ...(mine ? [] : [{ title: '提交人', dataIndex: 'ownerName', key: 'ownerName', width: 130, render: (v: string) => <span data-testid="wo-owner">{v}</span> }]),
        { title: '更新时间', dataIndex: 'updateTime', key: 'updateTime', width: 170, render: (v: number) => formatTime(v) },
      ]
    : [
        // A phone: the title carries number, type, submitter and time underneath; the state stays beside it.
        {
          title: '工单',
          key: 'title',
          width: 210,
          render: (_v, row) => (
            <div style={{ minWidth: 0 }}>
              {title(row)}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)', marginTop: 2, overflowWrap: 'anywhere' }}>
                <span data-testid="wo-no">{row.orderNo}</span> · {types.labels[row.type] ?? row.type}
                {mine ? '' : ` · ${row.ownerName}`}
              </div>
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>{formatTime(row.updateTime)}</div>
              {mine && awaitsOwner(row) ? (
                <div style={{ marginTop: 4 }}>
                  <AwaitingBadge />
                </div>
              ) : null}
            </div>
          ),
        },
        { title: '状态', dataIndex: 'state', key: 'state', width: 84, render: (v: WorkOrderState) => <StateTag state={v} labels={states.labels} /> },
      ];

  return (
    <>
      <ListToolbar list={list} search={{ placeholder: '按标题或工单编号搜索', testId: 'wo-search' }} refreshTestId="wo-refresh">
        <Select<WorkOrderState>
          allowClear
          placeholder="全部状态"
          style={{ width: stateWidth }}
          value={list.filters.state}
          options={states.options as { label: string; value: WorkOrderState }[]}
          onChange={(v) => list.setFilter('state', v)}
          virtual={false}
          data-testid="wo-state-filter"
        />
      </ListToolbar>
      <PagedTable<WorkOrder>
        list={list}
        columns={columns}
        rowData={(row) => ({ 'data-testid': 'wo-row', 'data-id': row.id, 'data-state': row.state })}
        empty={
          mine
            ? { filtered: '没有符合条件的工单', none: '还没有工单。遇到账号、任务、存储或费用问题，可以提交工单给运维人员。', action: { label: '新建工单', onClick: onCreate } }
            : { filtered: '没有符合条件的工单', none: '暂无用户提交的工单', action: { label: '刷新', onClick: () => void refetch() } }
        }
      />
    </>
  );
}

/**
 * 工单系统 (/workorder): the caller's work orders (state filter, search by title or number), 新建工单, and for
 * operators a second tab with everyone's. A row whose last word is an operator's shows 待您回复.
 */
export function WorkorderListPage() {
  // ?new=<type>[&taskId=] (a failed task's page, the payment pages): the dialog opens on that problem.
  const [params, setParams] = useSearchParams();
  const asked = params.get('new') as WorkOrderType | null;
  const [start] = useState<WorkOrderStart | undefined>(() =>
    asked && (WORKORDER_TYPES as readonly string[]).includes(asked) ? { type: asked, taskId: params.get('taskId') ?? undefined } : undefined,
  );
  const [creating, setCreating] = useState(Boolean(start));
  useEffect(() => {
    // Once opened, the link's parameters are spent: a reload or 返回 does not open the dialog again.
    if (params.has('new')) setParams({}, { replace: true });
  }, [params, setParams]);
  // The tab lives in the URL: 运营管理 › 工单系统 opens 全部工单 (`?tab=all`), and a reload keeps the tab.
  const tab: Scope = params.get('tab') === 'all' ? 'all' : 'mine';
  const setTab = (k: Scope) => setParams(k === 'all' ? { tab: 'all' } : {}, { replace: true });
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 60_000 });
  const operator = me.data?.roles.includes('operator') ?? false;
  const scope: Scope = operator ? tab : 'mine';
  const open = () => setCreating(true);

  return (
    <PageContainer
      title="工单系统"
      description="遇到账号、任务、存储或费用问题时提交工单，运维人员会在工单中回复，处理进度会通过站内消息通知您。"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={open} data-testid="wo-create">
          新建工单
        </Button>
      }
    >
      <ListCard>
        {operator ? (
          <Tabs
            activeKey={scope}
            onChange={(k) => setTab(k as Scope)}
            style={{ marginBottom: -16 }}
            items={[
              { key: 'mine', label: <span data-testid="wo-tab-mine">我的工单</span> },
              { key: 'all', label: <span data-testid="wo-tab-all">全部工单</span> },
            ]}
          />
        ) : (
          <Typography.Text strong data-testid="wo-tab-mine">
            我的工单
          </Typography.Text>
        )}
        <WorkOrderTable key={scope} scope={scope} onCreate={open} />
      </ListCard>
      <WorkOrderCreateModal open={creating} onClose={() => setCreating(false)} initial={start} />
    </PageContainer>
  );
}
