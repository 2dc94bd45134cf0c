import type { Order, OrderPageQuery, OrderStatus } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Input, Popconfirm, Select, Space, Tabs, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { ListCard, ListToolbar, useFilterWidth } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { getCurrentUser } from '../user-center/api';
import { cancelOrder, confirmOrder, fetchCenters, pageOrders } from './api';
import { CHANNEL_LABELS, OrderStatusTag } from './order-view';

type Scope = NonNullable<OrderPageQuery['scope']>;
type StatusTab = OrderStatus | 'ALL';
const STATUS_TABS: { key: StatusTab; label: string }[] = [
  { key: 'ALL', label: '全部' },
  { key: 'UNPAID', label: '待支付' },
  { key: 'PAID', label: '已支付' },
  { key: 'CANCELLED', label: '已取消' },
  { key: 'CLOSED', label: '已关闭' },
];

/** The buyer as operators know them: the login name, and the nickname when it differs. Never the internal id. */
function buyerName(row: Order): string {
  const b = row.buyer;
  if (!b) return '（用户已注销）';
  return b.nickname && b.nickname !== b.username ? `${b.username}（${b.nickname}）` : b.username;
}

/** 全部订单's 用户: who bought it and how to reach them (for a transfer that needs asking about). */
function Buyer({ row }: { row: Order }) {
  const contact = [row.buyer?.phone, row.buyer?.email].filter(Boolean).join(' · ');
  return (
    <div style={{ minWidth: 0, overflowWrap: 'anywhere' }} data-testid="order-buyer">
      <div>{buyerName(row)}</div>
      {contact ? <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>{contact}</div> : null}
    </div>
  );
}

/** An order number is one word: it moves to the next line whole rather than breaking inside (375 px phones). */
function OrderNo({ value }: { value: string }) {
  return (
    <span style={{ fontFamily: MONO, whiteSpace: 'nowrap', display: 'inline-block' }} data-testid="order-no">
      {value}
    </span>
  );
}

function Actions({ row, scope }: { row: Order; scope: Scope }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const done = (text: string) => {
    toast.success(text);
    void client.invalidateQueries({ queryKey: queryKeys.billing.root });
    void client.invalidateQueries({ queryKey: queryKeys.compPowersRoot });
  };
  const cancel = useMutation({ mutationFn: () => cancelOrder(row.id), onSuccess: () => done('订单已取消') });
  const confirm = useMutation({ mutationFn: () => confirmOrder(row.id), onSuccess: (o) => done(`已确认到账，订单 ${o.orderNo} 已支付`) });
  if (scope === 'all') {
    if (row.status === 'UNPAID' && row.payChannel === 'offline')
      return (
        <Popconfirm
          title="确认到账"
          description={`确认已收到用户 ${buyerName(row)} 的转账 ¥${row.amount}（订单 ${row.orderNo}）？确认后算力立即到账，且不可撤销。`}
          okText="确认到账"
          cancelText="取消"
          onConfirm={() => confirm.mutateAsync()}
        >
          <Button type="link" size="small" loading={confirm.isPending} data-testid="order-confirm">
            确认到账
          </Button>
        </Popconfirm>
      );
    return null;
  }
  if (row.status === 'UNPAID')
    return (
      <Space size={0} wrap>
        <Button type="link" size="small" onClick={() => navigate(`/pay?orderId=${encodeURIComponent(row.id)}`)} data-testid="order-pay">
          去支付
        </Button>
        <Popconfirm title="取消订单" description={`确定取消订单 ${row.orderNo}？`} okText="取消订单" cancelText="再想想" onConfirm={() => cancel.mutateAsync()}>
          <Button type="link" size="small" danger loading={cancel.isPending} data-testid="order-cancel">
            取消订单
          </Button>
        </Popconfirm>
      </Space>
    );
  if (row.status === 'PAID')
    return (
      <Link to="/expense?tab=charge" data-testid="order-records">
        查看充值记录
      </Link>
    );
  return null;
}

type OrderList = ReturnType<typeof usePagedList<OrderPageQuery, Order>>;

/** Everyone's orders (operators): by buyer, center and pay channel besides the orderNo and the status tabs. */
function AllOrdersFilters({ list }: { list: OrderList }) {
  const centers = useQuery({ queryKey: queryKeys.billing.centers, queryFn: fetchCenters, staleTime: 60_000 });
  const buyerWidth = useFilterWidth(200);
  const selectWidth = useFilterWidth(160);
  return (
    <>
      <Input.Search
        allowClear
        placeholder="买家用户名"
        style={{ width: buyerWidth }}
        maxLength={64}
        onSearch={(v) => list.setFilter('username', v.trim())}
        data-testid="order-filter-buyer"
      />
      <Select
        allowClear
        placeholder="全部分中心"
        style={{ width: selectWidth }}
        value={list.filters.subCenterId}
        options={(centers.data ?? []).map((c) => ({ label: c.name, value: c.id }))}
        onChange={(v: string | undefined) => list.setFilter('subCenterId', v)}
        virtual={false}
        data-testid="order-filter-center"
      />
      <Select
        allowClear
        placeholder="全部支付方式"
        style={{ width: selectWidth }}
        value={list.filters.payChannel}
        options={Object.entries(CHANNEL_LABELS).map(([value, label]) => ({ label, value }))}
        onChange={(v: Order['payChannel'] | undefined) => list.setFilter('payChannel', v ?? undefined)}
        virtual={false}
        data-testid="order-filter-channel"
      />
    </>
  );
}

/** The order list of one scope: the caller's own (订单明细), or everyone's (operators: 全部订单, 运营管理 › 订单). */
export function OrderTable({ scope }: { scope: Scope }) {
  const screens = useBreakpoint();
  const navigate = useNavigate();
  const [status, setStatus] = useState<StatusTab>('ALL');
  const list = usePagedList<OrderPageQuery, Order>({ key: queryKeys.billing.orders, fetch: pageOrders, fixed: { scope, status: status === 'ALL' ? undefined : status } });
  const product = (row: Order) => (
    <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
      <div>{row.productName}</div>
      <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
        {row.subCenterName} · {row.cardTypeName}
        {/* Bought for a team (ADR 0017): the buyer pays, the compute power is the team's. */}
        {row.teamId ? <span data-testid="order-for-team"> · 团队算力</span> : null}
      </div>
    </div>
  );
  const columns: TableColumnsType<Order> = screens.sm
    ? [
        { title: '订单编号', dataIndex: 'orderNo', key: 'orderNo', width: 190, render: (v: string) => <OrderNo value={v} /> },
        { title: '算力卡', key: 'product', width: 200, render: (_v, row) => product(row) },
        { title: '数量', dataIndex: 'quantity', key: 'quantity', width: 70 },
        { title: '卡时', dataIndex: 'cardHours', key: 'cardHours', width: 100 },
        { title: '金额（元）', dataIndex: 'amount', key: 'amount', width: 110 },
        { title: '状态', dataIndex: 'status', key: 'status', width: 90, render: (v: OrderStatus) => <OrderStatusTag status={v} /> },
        { title: '支付方式', dataIndex: 'payChannel', key: 'payChannel', width: 100, render: (v: Order['payChannel']) => (v ? CHANNEL_LABELS[v] : '--') },
        ...(scope === 'all' ? [{ title: '用户', key: 'buyer', width: 180, render: (_v: unknown, row: Order) => <Buyer row={row} /> }] : []),
        { title: '创建时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
        { title: '操作', key: 'actions', width: 180, fixed: 'right' as const, render: (_v, row) => <Actions row={row} scope={scope} /> },
      ]
    : [
        {
          title: '订单',
          key: 'order',
          width: 200,
          render: (_v, row) => (
            <div style={{ minWidth: 0 }}>
              {product(row)}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
                <OrderNo value={row.orderNo} />
              </div>
              {scope === 'all' ? (
                <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.65)' }}>
                  <Buyer row={row} />
                </div>
              ) : null}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
                ×{row.quantity} · {row.cardHours} 卡时 · ¥{row.amount}
                {row.payChannel ? ` · ${CHANNEL_LABELS[row.payChannel]}` : ''}
              </div>
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>{formatTime(row.createTime)}</div>
              <Actions row={row} scope={scope} />
            </div>
          ),
        },
        { title: '状态', dataIndex: 'status', key: 'status', width: 80, render: (v: OrderStatus) => <OrderStatusTag status={v} /> },
      ];
  return (
    <>
      <Tabs
        activeKey={status}
        onChange={(k) => setStatus(k as StatusTab)}
        size="small"
        items={STATUS_TABS.map((t) => ({ key: t.key, label: <span data-testid={`order-tab-${t.key}`}>{t.label}</span> }))}
      />
      <ListToolbar list={list} search={{ placeholder: '按订单编号搜索', testId: 'order-search' }} refreshTestId="order-refresh">
        {scope === 'all' ? <AllOrdersFilters list={list} /> : null}
      </ListToolbar>
      <PagedTable<Order>
        list={list}
        columns={columns}
        rowData={(row) => ({ 'data-testid': 'order-row', 'data-id': row.id, 'data-status': row.status })}
        empty={
          scope === 'all'
            ? { filtered: '没有符合条件的订单', none: '暂无订单', action: { label: '刷新', onClick: () => void list.list.refetch() } }
            : { filtered: '没有符合条件的订单', none: '还没有订单。购买算力卡后，订单会显示在这里。', action: { label: '购买算力', onClick: () => navigate('/pay') } }
        }
      />
    </>
  );
}

/** 订单明细 (/order): the caller's orders by status; operators also see everyone's to confirm transfers. */
export function OrderListPage() {
  const [tab, setTab] = useState<Scope>('mine');
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 60_000 });
  const operator = me.data?.roles.includes('operator') ?? false;
  const scope: Scope = operator ? tab : 'mine';
  const navigate = useNavigate();
  return (
    <PageContainer
      title="订单明细"
      description="查看算力卡购买订单。待支付订单在关闭前可继续支付或取消；线下转账的订单由运维人员确认到账后变为已支付。"
      extra={
        <Button type="primary" onClick={() => navigate('/pay')} data-testid="order-buy">
          购买算力
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
              { key: 'mine', label: <span data-testid="order-scope-mine">我的订单</span> },
              { key: 'all', label: <span data-testid="order-scope-all">全部订单</span> },
            ]}
          />
        ) : (
          <Typography.Text strong>我的订单</Typography.Text>
        )}
        <OrderTable key={scope} scope={scope} />
      </ListCard>
    </PageContainer>
  );
}
