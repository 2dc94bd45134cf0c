import { DownloadOutlined } from '@ant-design/icons';
import type { ConsumeRecord, Page, RecordPageQuery } from '@suanli/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Card, Select, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { dayjs } from '../../shared/dayjs';
import { allPages, downloadCsv } from '../../shared/csv';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { useFilterWidth } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { consumeStats, pageRecords, recordDays } from './api';
import { ConsumeDetail } from './consume-detail';
import { DailyChart } from './daily-chart';
import { RecordFilters } from './record-filters';
import { consumeCsv, csvFileName, fillDays, TASK_KIND_LABELS, type RecordFilterValues } from './records';
import { ShareChart } from './share-chart';

const fetchConsumes = (q: RecordPageQuery) => pageRecords(q) as Promise<Page<ConsumeRecord>>;
const BARS = { name: '消耗卡时', of: 'cardHours' } as const;
const muted = { fontSize: 12, color: 'rgba(0,0,0,0.45)' } as const;
const dayOf = (ms: number | undefined, end = false) => (ms === undefined ? undefined : dayjs(end ? ms - 1 : ms).format('YYYY-MM-DD'));
const clock = (ms: number) => dayjs(ms).format('HH:mm:ss');

/**
 * 消费记录: what running tasks drew (one record per task, compute bucket and day). Filters (days, center, card
 * type, task — `?taskId=` opens it narrowed to one task), consumption per day and its split by center and
 * card type as charts, the paged list with each record's detail, and 导出 CSV of every record selected.
 */
export function ConsumeTab() {
  const screens = useBreakpoint();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const taskWidth = useFilterWidth(220);
  const [detailId, setDetailId] = useState<string | null>(null);
  const list = usePagedList<RecordPageQuery, ConsumeRecord>({
    key: queryKeys.billing.records,
    fetch: fetchConsumes,
    fixed: { type: 'consume' },
    initial: params.get('taskId') ? { taskId: params.get('taskId')! } : undefined,
  });
  const filters: RecordFilterValues = list.filters;
  const chosen = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as RecordFilterValues;
  const days = useQuery({ queryKey: queryKeys.billing.days({ type: 'consume', ...chosen }), queryFn: () => recordDays({ type: 'consume', ...chosen }) });
  const stats = useQuery({ queryKey: queryKeys.billing.consumeStats(chosen), queryFn: () => consumeStats(chosen) });
  // The task filter offers the tasks that consumed within the other filters.
  const { taskId, ...others } = chosen;
  const tasks = useQuery({ queryKey: queryKeys.billing.consumeStats(others), queryFn: () => consumeStats(others) });
  const taskOptions = (tasks.data?.byTask ?? []).map((t) => ({ value: t.taskId, label: `${t.taskName}（${t.cardHours} 卡时）` }));
  if (taskId && !taskOptions.some((o) => o.value === taskId)) taskOptions.unshift({ value: taskId, label: taskId });
  const exporting = useMutation({
    mutationFn: async () => {
      const { rows, truncated } = await allPages(fetchConsumes, { type: 'consume', ...chosen });
      downloadCsv(csvFileName('消费记录', dayjs()), consumeCsv(rows));
      return { count: rows.length, truncated };
    },
    onSuccess: ({ count, truncated }) => (truncated ? toast.warning(`记录过多，仅导出了前 ${count} 条，请缩小日期范围或按任务分批导出`) : toast.success(`已导出 ${count} 条消费记录`)),
  });

  const taskName = (r: ConsumeRecord) => (
    <Button type="link" size="small" style={{ padding: 0, height: 'auto', whiteSpace: 'normal', textAlign: 'left', overflowWrap: 'anywhere' }} onClick={() => setDetailId(r.id)} data-testid="consume-task">
      {r.taskName}
    </Button>
  );
  const columns: TableColumnsType<ConsumeRecord> = screens.sm
    ? [
        { title: '任务', key: 'task', width: 200, render: (_v, r) => (
          <div style={{ minWidth: 0 }}>
            {taskName(r)}
            <div style={muted}>{TASK_KIND_LABELS[r.taskKind] ?? r.taskKind}</div>
          </div>
        ) },
        { title: '分中心 · 卡型', key: 'center', width: 200, render: (_v, r) => `${r.subCenterName} · ${r.cardTypeName}` },
        { title: '计费卡数', dataIndex: 'billedCards', key: 'cards', width: 90 },
        { title: '日期', dataIndex: 'day', key: 'day', width: 110 },
        { title: '计量时段', key: 'span', width: 160, render: (_v, r) => `${clock(r.startTime)} – ${clock(r.endTime)}` },
        { title: '消耗卡时', dataIndex: 'cardHours', key: 'cardHours', width: 100 },
      ]
    : [
        {
          title: '消费',
          key: 'record',
          width: 200,
          render: (_v, r) => (
            <div style={{ minWidth: 0 }}>
              {taskName(r)}
              <div style={{ ...muted, overflowWrap: 'anywhere' }}>
                {r.subCenterName} · {r.cardTypeName} · {r.billedCards} 卡
              </div>
              <div style={muted}>{formatTime(r.startTime)}</div>
            </div>
          ),
        },
        { title: '卡时', key: 'hours', width: 90, render: (_v, r) => <span>−{r.cardHours}</span> },
      ];
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 16 }}>
      <RecordFilters value={filters} onChange={(patch) => Object.entries(patch).forEach(([k, v]) => list.setFilter(k as keyof RecordFilterValues, v as never))} kind="consume">
        <Select
          allowClear
          showSearch
          optionFilterProp="label"
          placeholder="全部任务"
          style={{ width: taskWidth }}
          value={filters.taskId}
          options={taskOptions}
          onChange={(v?: string) => list.setFilter('taskId', v)}
          virtual={false}
          data-testid="consume-task-filter"
        />
        <Button icon={<DownloadOutlined />} loading={exporting.isPending} disabled={!list.page.total} onClick={() => exporting.mutate()} data-testid="consume-export">
          导出 CSV
        </Button>
      </RecordFilters>
      <div style={{ display: 'grid', gridTemplateColumns: screens.lg ? '3fr 2fr' : '1fr', gap: 16 }}>
        <Card
          size="small"
          title="每日消耗"
          extra={stats.data && <Typography.Text type="secondary" data-testid="consume-total">合计 {stats.data.total} 卡时</Typography.Text>}
          styles={{ body: { padding: screens.sm ? 12 : 8 } }}
        >
          <DailyChart
            days={days.data && fillDays(days.data, dayOf(chosen.startTime), dayOf(chosen.endTime, true))}
            loading={days.isLoading}
            bars={BARS}
            empty="所选范围内没有消费"
            testId="consume-chart"
            countUnit="个任务"
          />
        </Card>
        <Card size="small" title="消费分布" styles={{ body: { padding: screens.sm ? 12 : 8 } }}>
          <ShareChart stats={stats.data} loading={stats.isLoading} />
        </Card>
      </div>
      <PagedTable<ConsumeRecord>
        list={list}
        columns={columns}
        rowData={(r) => ({ 'data-testid': 'consume-row', 'data-id': r.id, 'data-task': r.taskId })}
        empty={{ filtered: '没有符合条件的消费记录', none: '还没有消费记录。任务运行时按分钟计量，消耗的卡时会显示在这里。', action: { label: '提交训练任务', onClick: () => navigate('/training') } }}
      />
      <ConsumeDetail id={detailId} onClose={() => setDetailId(null)} />
    </div>
  );
}
