import { formatCardHours, OVERVIEW_DAYS_DEFAULT, type AdminOverview, type OverviewCenter, type OverviewDay } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Empty, Progress, Row, Segmented, Space, Statistic, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { queryKeys } from '../../app/query-keys';
import { EChart } from '../../shared/charts/echart';
import { formatTime } from '../../shared/time';
import { PageContainer } from '../../shared/ui/page-container';
import { PageLoading } from '../../shared/ui/page-loading';
import { CenterTitle } from './admin-centers-page';
import { getOverview } from './api';
import { OperatorOnly } from './operator-only';

const TITLE = '平台概览';
const RANGES = [7, 30, 90] as const;
/** The figures move with every task and payment: read again each minute while the page is open. */
const REFRESH_MS = 60_000;

const SERIES: { name: string; of: keyof Omit<OverviewDay, 'day'>; color: string }[] = [
  { name: '售出卡时', of: 'soldCardSeconds', color: '#1677ff' },
  { name: '赠送卡时', of: 'grantedCardSeconds', color: '#52c41a' },
  { name: '消耗卡时', of: 'consumedCardSeconds', color: '#fa8c16' },
];

/** A CPU-only type's "cards" are cores. */
const unitOf = (accelerator: boolean) => (accelerator ? '张' : '核');

function Totals({ data }: { data: AdminOverview }) {
  const running = data.centers.reduce((s, c) => s + c.runningTasks, 0);
  const cards = data.centers.flatMap((c) => c.cardTypes).filter((t) => t.accelerator);
  const inUse = cards.reduce((s, t) => s + t.cardsInUse, 0);
  const total = cards.reduce((s, t) => s + t.totalCards, 0);
  const { users } = data;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} sm={12} lg={8}>
        <Card data-testid="overview-users">
          <Statistic title="用户总数" value={users.total} suffix="人" />
          <Typography.Text type="secondary">
            正常 {users.active} · 已禁用 {users.disabled} · 近 7 天新增 {users.newLast7Days}
          </Typography.Text>
        </Card>
      </Col>
      <Col xs={24} sm={12} lg={8}>
        <Card data-testid="overview-running">
          <Statistic title="运行中任务" value={running} suffix="个" />
          <Typography.Text type="secondary">含启动中与停止中、仍占用资源的任务</Typography.Text>
        </Card>
      </Col>
      <Col xs={24} sm={24} lg={8}>
        <Card data-testid="overview-cards">
          <Statistic title="在用加速卡" value={inUse} suffix={`/ ${total} 张`} />
          <Progress percent={total ? Math.round((inUse / total) * 100) : 0} size="small" />
        </Card>
      </Col>
    </Row>
  );
}

function CenterUsage({ center }: { center: OverviewCenter }) {
  return (
    <Card
      size="small"
      data-testid="overview-center"
      data-id={center.id}
      title={<CenterTitle name={center.name} status={center.status} />}
      extra={<Typography.Text type="secondary">运行中 {center.runningTasks} 个任务</Typography.Text>}
    >
      <Space orientation="vertical" size={10} style={{ width: '100%' }}>
        {center.cardTypes.map((t) => (
          <div key={t.id} data-testid="overview-card-type" data-id={t.id}>
            <div style={{ display: 'flex', justifyContent: 'space-between', gap: 8, flexWrap: 'wrap' }}>
              <span style={{ overflowWrap: 'anywhere' }}>{t.name}</span>
              <Typography.Text type="secondary" data-testid="overview-card-usage">
                在用 {t.cardsInUse} / {t.totalCards} {unitOf(t.accelerator)}
              </Typography.Text>
            </div>
            <Progress percent={t.totalCards ? Math.round((t.cardsInUse / t.totalCards) * 100) : 0} size="small" showInfo={false} />
          </div>
        ))}
      </Space>
    </Card>
  );
}

function DaysChart({ days }: { days: OverviewDay[] }) {
  const option = useMemo(
    () => ({
      grid: { left: 8, right: 16, top: 56, bottom: 8, containLabel: true },
      legend: { top: 0, data: SERIES.map((s) => s.name) },
      tooltip: {
        trigger: 'axis',
        formatter: (items: { dataIndex: number; marker: string; seriesName: string; value: number }[]) => {
          const d = days[items[0]?.dataIndex ?? 0];
          return d ? [d.day, ...items.map((i) => `${i.marker}${i.seriesName}：${i.value.toFixed(2)}`)].join('<br/>') : '';
        },
      },
      xAxis: { type: 'category', data: days.map((d) => d.day.slice(5)), axisTick: { alignWithLabel: true } },
      yAxis: { type: 'value', name: '卡时', nameTextStyle: { align: 'left' } },
      series: SERIES.map((s) => ({
        name: s.name,
        // Bars: a day is a sum of its own, not a point on a trend (most days of a young platform are empty).
        type: 'bar',
        data: days.map((d) => Number(formatCardHours(d[s.of]))),
        itemStyle: { color: s.color },
        barMaxWidth: 16,
      })),
    }),
    [days],
  );
  return (
    <div data-testid="overview-chart" data-days={days.length}>
      <EChart option={option} height={280} />
    </div>
  );
}

function Overview() {
  const [days, setDays] = useState<number>(OVERVIEW_DAYS_DEFAULT);
  const overview = useQuery({ queryKey: queryKeys.admin.overview(days), queryFn: () => getOverview(days), refetchInterval: REFRESH_MS, placeholderData: (prev) => prev });
  const data = overview.data;
  if (!data) return overview.isError ? <Alert type="error" showIcon title="平台概览加载失败，请刷新重试" /> : <PageLoading />;
  const sum = (of: keyof Omit<OverviewDay, 'day'>) => formatCardHours(data.days.reduce((s, d) => s + d[of], 0));
  return (
    <Space orientation="vertical" size={16} style={{ width: '100%' }}>
      <Totals data={data} />
      <Card title="各分中心用卡情况">
        {data.centers.length ? (
          <Row gutter={[16, 16]}>
            {data.centers.map((c) => (
              <Col key={c.id} xs={24} xl={12}>
                <CenterUsage center={c} />
              </Col>
            ))}
          </Row>
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无分中心" />
        )}
      </Card>
      <Card
        title="每日卡时"
        extra={
          <Segmented<number>
            size="small"
            value={days}
            onChange={setDays}
            options={RANGES.map((n) => ({ label: `近 ${n} 天`, value: n }))}
            data-testid="overview-range"
          />
        }
      >
        <Space orientation="vertical" size={12} style={{ width: '100%' }}>
          <Typography.Text type="secondary" data-testid="overview-sums" style={{ display: 'flex', flexWrap: 'wrap', columnGap: 16 }}>
            {SERIES.map((s) => (
              <span key={s.of} style={{ whiteSpace: 'nowrap' }}>
                {s.name}合计 {sum(s.of)}
              </span>
            ))}
          </Typography.Text>
          <DaysChart days={data.days} />
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            售出为已支付订单充值的卡时（不含赠送）；按北京时间计日。更新于 {formatTime(data.time)}
          </Typography.Text>
        </Space>
      </Card>
    </Space>
  );
}

/**
 * 运营管理 › 平台概览 (/admin/overview): users, what holds cards now at each center, and the card-hours sold,
 * granted and consumed per day over 7, 30 or 90 days.
 */
export function AdminOverviewPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="用户、各分中心运行中的任务与在用卡数，以及每日售出、赠送和消耗的卡时。">
        <Overview />
      </PageContainer>
    </OperatorOnly>
  );
}
