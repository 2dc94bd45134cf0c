import { DownloadOutlined } from '@ant-design/icons';
import type { ChargeRecord, Page, RecordPageQuery } from '@suanli/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Card, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { dayjs } from '../../shared/dayjs';
import { allPages, downloadCsv } from '../../shared/csv';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { PagedTable } from '../../shared/ui/paged-table';
import { pageRecords, recordDays } from './api';
import { CHANNEL_LABELS } from '../order/order-view';
import { ChargeDetail } from './charge-detail';
import { DailyChart } from './daily-chart';
import { RecordFilters } from './record-filters';
import { chargeCsv, csvFileName, fillDays, type RecordFilterValues } from './records';

const fetchCharges = (q: RecordPageQuery) => pageRecords(q) as Promise<Page<ChargeRecord>>;
const BARS = { name: '充值金额（元）', of: 'amount' } as const;
const LINE = { name: '卡时', of: 'cardHours' } as const;
const muted = { fontSize: 12, color: 'rgba(0,0,0,0.45)' } as const;

/** `yyyy-MM-dd` of a filter's bound (the end is exclusive: its day is the one before). */
const dayOf = (ms: number | undefined, end = false) => (ms === undefined ? undefined : dayjs(end ? ms - 1 : ms).format('YYYY-MM-DD'));

/**
 * 充值记录: filters (days, center, card type), purchases per day as a chart, the paged list with each record's
 * detail, and 导出 CSV of every record the filters select.
 */
export function ChargeTab() {
  const screens = useBreakpoint();
  const navigate = useNavigate();
  const [detailId, setDetailId] = useState<string | null>(null);
  const list = usePagedList<RecordPageQuery, ChargeRecord>({ key: queryKeys.billing.records, fetch: fetchCharges, fixed: { type: 'charge' } });
  const filters: RecordFilterValues = list.filters;
  const chosen = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as RecordFilterValues;
  const days = useQuery({ queryKey: queryKeys.billing.days({ type: 'charge', ...chosen }), queryFn: () => recordDays({ type: 'charge', ...chosen }) });
  const exporting = useMutation({
    mutationFn: async () => {
      const { rows, truncated } = await allPages(fetchCharges, { type: 'charge', ...chosen });
      downloadCsv(csvFileName('充值记录', dayjs()), chargeCsv(rows));
      return { count: rows.length, truncated };
    },
    onSuccess: ({ count, truncated }) => (truncated ? toast.warning(`记录过多，仅导出了前 ${count} 条，请缩小日期范围后分批导出`) : toast.success(`已导出 ${count} 条充值记录`)),
  });

  const orderNo = (r: ChargeRecord) => (
    <Button type="link" size="small" style={{ padding: 0, height: 'auto', fontFamily: MONO, whiteSpace: 'nowrap' }} onClick={() => setDetailId(r.id)} data-testid="charge-order-no">
      {r.orderNo}
    </Button>
  );
  const columns: TableColumnsType<ChargeRecord> = screens.sm
    ? [
        { title: '订单编号', key: 'orderNo', width: 170, render: (_v, r) => orderNo(r) },
        { title: '分中心 · 卡型', key: 'center', width: 200, render: (_v, r) => `${r.subCenterName} · ${r.cardTypeName}` },
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
              {orderNo(r)}
              <div style={{ ...muted, overflowWrap: 'anywhere' }}>
                {r.subCenterName} · {r.cardTypeName} · {CHANNEL_LABELS[r.payChannel]}
              </div>
              <div style={muted}>{formatTime(r.createTime)}</div>
            </div>
          ),
        },
        {
          title: '卡时 / 金额',
          key: 'hours',
          width: 100,
          render: (_v, r) => (
            <div>
              +{r.cardHours}
              <div style={muted}>¥{r.amount}</div>
            </div>
          ),
        },
      ];
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 16 }}>
      <RecordFilters value={filters} onChange={(patch) => Object.entries(patch).forEach(([k, v]) => list.setFilter(k as keyof RecordFilterValues, v as never))} kind="charge">
        <Button icon={<DownloadOutlined />} loading={exporting.isPending} disabled={!list.page.total} onClick={() => exporting.mutate()} data-testid="charge-export">
          导出 CSV
        </Button>
      </RecordFilters>
      <Card size="small" title="每日充值" styles={{ body: { padding: screens.sm ? 12 : 8 } }}>
        <DailyChart
          days={days.data && fillDays(days.data, dayOf(chosen.startTime), dayOf(chosen.endTime, true))}
          loading={days.isLoading}
          bars={BARS}
          line={LINE}
          empty="所选范围内没有充值"
          testId="charge-chart"
        />
      </Card>
      <PagedTable<ChargeRecord>
        list={list}
        columns={columns}
        rowData={(r) => ({ 'data-testid': 'charge-row', 'data-id': r.id })}
        empty={{ filtered: '没有符合条件的充值记录', none: '还没有充值记录。订单支付成功后，充值记录会显示在这里。', action: { label: '购买算力', onClick: () => navigate('/pay') } }}
      />
      <ChargeDetail id={detailId} onClose={() => setDetailId(null)} />
    </div>
  );
}
