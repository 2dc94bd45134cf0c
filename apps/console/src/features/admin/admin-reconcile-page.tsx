import type { ReconcileDay, ReconcileDifference, ReconcileQuery } from '@suanli/contracts';
import { formatCardHours } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, DatePicker, Select, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { queryKeys } from '../../app/query-keys';
import type { Dayjs } from 'dayjs';
import { dayjs } from '../../shared/dayjs';
import { PageContainer } from '../../shared/ui/page-container';
import { fetchCenters } from '../order/api';
import { reconcile } from './api';
import { OperatorOnly } from './operator-only';

const TITLE = '计量对账';
const KIND_LABELS: Record<ReconcileDifference['kind'], string> = { task: '控制台任务', outside: '外部作业', unknown: '未计量' };
const mono = { fontFamily: 'monospace' } as const;
/** Card-seconds as 卡时, signed (a difference may be negative). */
const hours = (s: number) => `${s < 0 ? '−' : ''}${formatCardHours(Math.abs(s))}`;
const diffText = (s: number) => (s === 0 ? <Tag color="green">0</Tag> : <Tag color="red">{`${s > 0 ? '+' : '−'}${Math.abs(s)} 卡秒`}</Tag>);

/**
 * 运营管理 › 计量对账 (issue 25, item 4): per center and day (UTC+8), the card-seconds of the ended jobs of the
 * platform's cluster accounts in the scheduler's accounting against the card-seconds drawn; every job and
 * day that differs is listed. Zero is the expected value.
 */
export function AdminReconcilePage() {
  const [range, setRange] = useState<[Dayjs, Dayjs]>([dayjs().subtract(6, 'day'), dayjs()]);
  const [centerId, setCenterId] = useState<string | undefined>();
  const query: ReconcileQuery = { fromDay: range[0].format('YYYY-MM-DD'), toDay: range[1].format('YYYY-MM-DD'), ...(centerId ? { subCenterId: centerId } : {}) };
  const centers = useQuery({ queryKey: queryKeys.billing.centers, queryFn: fetchCenters, staleTime: 60_000 });
  const result = useQuery({ queryKey: queryKeys.admin.reconcile(query), queryFn: () => reconcile(query) });
  const centerName = (id: string) => centers.data?.find((c) => c.id === id)?.name ?? id;

  const dayColumns: TableColumnsType<ReconcileDay> = [
    { title: '分中心', dataIndex: 'subCenterName', key: 'center', width: 160 },
    { title: '日期', dataIndex: 'day', key: 'day', width: 110 },
    { title: '作业数', dataIndex: 'jobs', key: 'jobs', width: 80 },
    { title: '调度器记账（卡时）', key: 'accounted', width: 150, render: (_v, r) => hours(r.accountedSeconds) },
    { title: '已扣减（卡时）', key: 'drawn', width: 130, render: (_v, r) => hours(r.drawnSeconds) },
    { title: '差异', key: 'diff', width: 120, render: (_v, r) => diffText(r.differenceSeconds) },
  ];
  const diffColumns: TableColumnsType<ReconcileDifference> = [
    { title: '分中心', key: 'center', width: 140, render: (_v, r) => centerName(r.subCenterId) },
    { title: '日期', dataIndex: 'day', key: 'day', width: 110 },
    { title: '作业ID', key: 'job', width: 100, render: (_v, r) => <span style={mono}>{r.jobId || '—'}</span> },
    { title: '类型', key: 'kind', width: 100, render: (_v, r) => KIND_LABELS[r.kind] },
    { title: '名称', dataIndex: 'name', key: 'name', width: 160, ellipsis: true },
    { title: '集群账号', dataIndex: 'account', key: 'account', width: 110, render: (v: string) => v || '—' },
    { title: '记账（卡秒）', dataIndex: 'accountedSeconds', key: 'accounted', width: 110 },
    { title: '已扣减（卡秒）', dataIndex: 'drawnSeconds', key: 'drawn', width: 120 },
    { title: '差异', key: 'diff', width: 120, render: (_v, r) => diffText(r.differenceSeconds) },
  ];
  const data = result.data;
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="按分中心、按日（东八区）比较调度器记账中平台集群账号已结束作业的卡时与平台已扣减的卡时，包括控制台任务和外部作业；差异应为零，每一处差异都会列出。">
        <Card size="small">
          <Space wrap>
            <DatePicker.RangePicker
              allowClear={false}
              value={range}
              disabledDate={(d) => d.isAfter(dayjs(), 'day')}
              onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])}
              data-testid="reconcile-range"
            />
            <Select
              allowClear
              placeholder="全部分中心"
              style={{ width: 200 }}
              value={centerId}
              options={(centers.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
              onChange={(v?: string) => setCenterId(v)}
              data-testid="reconcile-center"
            />
          </Space>
        </Card>
        {result.isError && <Alert type="error" showIcon title="对账失败" description={result.error.message} />}
        {data && data.unavailable.length > 0 && <Alert type="warning" showIcon title={`以下分中心没有可读取的调度器记账，未参与对账：${data.unavailable.join('、')}`} />}
        {data && data.reconciled.length === 0 && (
          <Alert type="info" showIcon data-testid="reconcile-summary" title="没有可对账的分中心" description="所选分中心都没有可读取的调度器记账，本次未做任何比较。" />
        )}
        {data && data.reconciled.length > 0 && (
          <Alert
            type={data.differences.length ? 'error' : 'success'}
            showIcon
            data-testid="reconcile-summary"
            title={data.differences.length ? `发现 ${data.differences.length} 处差异` : '记账与扣减一致，没有差异'}
            description={data.running ? `另有 ${data.running} 个作业仍在运行，结束后参与对账。` : undefined}
          />
        )}
        <Card size="small" title="按日汇总">
          <Table<ReconcileDay>
            rowKey={(r) => `${r.subCenterId}|${r.day}`}
            size="small"
            loading={result.isLoading}
            columns={dayColumns}
            dataSource={data?.days ?? []}
            pagination={false}
            scroll={{ x: 750 }}
            locale={{ emptyText: '所选范围内没有已结束的作业' }}
            onRow={(r) => ({ 'data-testid': 'reconcile-day', 'data-diff': String(r.differenceSeconds) }) as never}
          />
        </Card>
        <Card size="small" title="差异明细">
          <Table<ReconcileDifference>
            rowKey={(r) => `${r.subCenterId}|${r.day}|${r.jobId}|${r.meterKey}`}
            size="small"
            loading={result.isLoading}
            columns={diffColumns}
            dataSource={data?.differences ?? []}
            pagination={{ pageSize: 20, showTotal: (t) => `共 ${t} 条` }}
            scroll={{ x: 1070 }}
            locale={{ emptyText: <Typography.Text type="secondary">没有差异</Typography.Text> }}
            onRow={() => ({ 'data-testid': 'reconcile-difference' }) as never}
          />
        </Card>
      </PageContainer>
    </OperatorOnly>
  );
}
