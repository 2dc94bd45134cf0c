import type { ChargeRecord, CompPowerBucket, Page, RecordPageQuery } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, DatePicker, Empty, Select, Space, Statistic, Table, Tabs, Tag, Typography, type TableColumnsType } from 'antd';
import type { Dayjs } from 'dayjs';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useCompPowers } from '../../app/comp-power';
import { queryKeys } from '../../app/query-keys';
import { useUserStore } from '../../app/stores/user-store';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { ListCard, PagedTable, useFilterWidth } from '../../shared/ui/paged-list';
import { PageContainer } from '../../shared/ui/page-container';
import { fetchCenters, pageRecords } from '../order/api';
import { CHANNEL_LABELS } from '../order/order-view';

type Tab = RecordPageQuery['type'];

/** The balance per bucket (center, card type, granted / remaining, expiry, source): what people check first. */
function Balance() {
  const userId = useUserStore((s) => s.userInfo?.id);
  const powers = useCompPowers(userId);
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const columns: TableColumnsType<CompPowerBucket> = [
    { title: '分中心 · 卡型', key: 'center', width: screens.sm ? 200 : 150, render: (_v, b) => `${b.subCenterName} · ${b.cardTypeName}` },
    { title: '剩余 / 总计（卡时）', key: 'hours', width: 150, render: (_v, b) => <span data-testid="balance-remaining">{b.remaining} / {b.granted}</span> },
    ...(screens.sm
      ? [
          { title: '到期时间', dataIndex: 'expireTime', key: 'expireTime', width: 170, render: (v: number) => formatTime(v) },
          { title: '来源', dataIndex: 'source', key: 'source', width: 90, render: (v: CompPowerBucket['source']) => <Tag>{v === 'order' ? '购买' : '赠送'}</Tag> },
        ]
      : []),
  ];
  return (
    <Card style={{ marginBottom: 16 }} data-testid="expense-balance">
      <Space wrap align="center" style={{ justifyContent: 'space-between', width: '100%', marginBottom: 12 }}>
        <Statistic title="剩余算力" value={powers.data?.total ?? '--'} suffix="卡时" />
        <Button type="primary" onClick={() => navigate('/pay')} data-testid="expense-buy">
          购买算力
        </Button>
      </Space>
      <Table<CompPowerBucket>
        rowKey="id"
        size="small"
        tableLayout="fixed"
        pagination={false}
        loading={powers.isLoading}
        columns={columns}
        dataSource={powers.data?.items ?? []}
        locale={{ emptyText: '暂无可用算力，购买算力卡后显示在这里' }}
      />
    </Card>
  );
}

function ChargeTable() {
  const screens = useBreakpoint();
  const navigate = useNavigate();
  const centers = useQuery({ queryKey: queryKeys.billing.centers, queryFn: fetchCenters, staleTime: 60_000 });
  const list = usePagedList<RecordPageQuery, ChargeRecord>({
    key: queryKeys.billing.records,
    fetch: (q) => pageRecords(q) as Promise<Page<ChargeRecord>>,
    fixed: { type: 'charge' },
  });
  const width = useFilterWidth(180);
  const orderLink = (r: ChargeRecord) => (
    <Link to="/order" style={{ fontFamily: MONO, overflowWrap: 'anywhere' }} data-testid="charge-order-no">
      {r.orderNo}
    </Link>
  );
  const columns: TableColumnsType<ChargeRecord> = screens.sm
    ? [
        { title: '订单编号', key: 'orderNo', width: 190, render: (_v, r) => orderLink(r) },
        { title: '分中心 · 卡型', key: 'center', width: 180, render: (_v, r) => `${r.subCenterName} · ${r.cardTypeName}` },
        { title: '卡时', dataIndex: 'cardHours', key: 'cardHours', width: 100 },
        { title: '金额（元）', dataIndex: 'amount', key: 'amount', width: 110 },
        { title: '支付方式', dataIndex: 'payChannel', key: 'payChannel', width: 100, render: (v: ChargeRecord['payChannel']) => CHANNEL_LABELS[v] },
        { title: '充值时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
      ]
    : [
        {
          title: '充值',
          key: 'record',
          width: 200,
          render: (_v, r) => (
            <div style={{ minWidth: 0 }}>
              {orderLink(r)}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
                {r.subCenterName} · {r.cardTypeName} · {CHANNEL_LABELS[r.payChannel]}
              </div>
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>{formatTime(r.createTime)}</div>
            </div>
          ),
        },
        { title: '卡时 / 金额', key: 'hours', width: 100, render: (_v, r) => <div>+{r.cardHours}<div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>¥{r.amount}</div></div> },
      ];
  return (
    <>
      <Space wrap style={{ marginBottom: 12 }}>
        <Select
          allowClear
          placeholder="全部分中心"
          style={{ width }}
          value={list.filters.subCenterId}
          options={(centers.data ?? []).map((c) => ({ label: c.name, value: c.id }))}
          onChange={(v) => list.setFilter('subCenterId', v)}
          virtual={false}
          data-testid="charge-center"
        />
        <DatePicker.RangePicker
          placeholder={['开始日期', '结束日期']}
          style={{ width: screens.sm ? 260 : '100%' }}
          onChange={(range: [Dayjs | null, Dayjs | null] | null) => {
            list.setFilter('startTime', range?.[0]?.startOf('day').valueOf());
            list.setFilter('endTime', range?.[1]?.endOf('day').valueOf());
          }}
        />
      </Space>
      <PagedTable<ChargeRecord>
        list={list}
        columns={columns}
        rowData={(r) => ({ 'data-testid': 'charge-row', 'data-id': r.id })}
        empty={{ filtered: '没有符合条件的充值记录', none: '还没有充值记录。订单支付成功后，充值记录会显示在这里。', action: { label: '购买算力', onClick: () => navigate('/pay') } }}
      />
    </>
  );
}

/** Consume records come from metering, which is not built yet: say so rather than show an empty table. */
function ConsumeTab() {
  return (
    <Empty
      data-testid="consume-empty"
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <Typography.Text type="secondary">
          按任务计量的消费记录即将上线。目前任务运行不扣减卡时，这里暂时没有记录。
        </Typography.Text>
      }
    />
  );
}

/** 费用明细 (/expense, the menu's 费用中心 › 费用明细): the balance per bucket, then 消费记录 and 充值记录. */
export function ExpensePage() {
  const [params, setParams] = useSearchParams();
  const tab: Tab = params.get('tab') === 'charge' ? 'charge' : 'consume';
  return (
    <PageContainer title="费用明细" description="查看剩余算力、充值记录与消费记录。">
      <Balance />
      <ListCard>
        <Tabs
          activeKey={tab}
          onChange={(k) => setParams({ tab: k }, { replace: true })}
          items={[
            { key: 'consume', label: <span data-testid="expense-tab-consume">消费记录</span>, children: <ConsumeTab /> },
            { key: 'charge', label: <span data-testid="expense-tab-charge">充值记录</span>, children: <ChargeTable /> },
          ]}
        />
      </ListCard>
    </PageContainer>
  );
}
