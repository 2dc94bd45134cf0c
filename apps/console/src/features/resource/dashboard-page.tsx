import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Empty, Row, Segmented, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { dayjs } from '../../shared/dayjs';
import { EChart } from '../../shared/charts/echart';
import { PageContainer } from '../../shared/ui/page-container';
import { vendorLabel } from '../../shared/vendor';
import { fetchCardHours, fetchUtilization, fetchVendors } from './api';
import { RESOURCE_REFRESH_MS } from './resource-view';

const RANGES = [
  { value: 6, label: '6 小时' },
  { value: 24, label: '24 小时' },
  { value: 168, label: '7 天' },
];

/**
 * 资源大屏 (/resource/dashboard, /dashboard — the logo's target): utilization of every center over time,
 * cards by vendor, and the caller's card-hours per day. Charts re-read the stored samples on a timer.
 */
export function DashboardPage() {
  const navigate = useNavigate();
  const [hours, setHours] = useState(24);
  const util = useQuery({ queryKey: queryKeys.resource.utilization(hours), queryFn: () => fetchUtilization(hours), refetchInterval: RESOURCE_REFRESH_MS });
  const vendors = useQuery({ queryKey: queryKeys.resource.vendors, queryFn: fetchVendors, refetchInterval: RESOURCE_REFRESH_MS });
  const cardHours = useQuery({ queryKey: queryKeys.resource.cardHours(14), queryFn: () => fetchCardHours(14), refetchInterval: RESOURCE_REFRESH_MS });

  const utilOption = useMemo(
    () => ({
      tooltip: { trigger: 'axis', valueFormatter: (v: number) => `${v}%` },
      legend: { type: 'scroll', top: 0 },
      grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
      // Samples are seconds apart: without these templates ECharts labels ticks down to the millisecond ("05:15:15 963").
      xAxis: {
        type: 'time',
        axisLabel: { hideOverlap: true, formatter: { year: '{yyyy}', month: '{M}月', day: '{M}-{dd}', hour: '{HH}:{mm}', minute: '{HH}:{mm}', second: '{HH}:{mm}:{ss}', millisecond: '{HH}:{mm}:{ss}' } },
      },
      yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value}%' } },
      series: (util.data?.centers ?? []).map((c) => ({
        name: c.subCenterName,
        type: 'line',
        showSymbol: false,
        data: c.points.map((p) => [p.at, Math.round(p.utilization * 1000) / 10]),
      })),
    }),
    [util.data],
  );
  const vendorOption = useMemo(
    () => ({
      tooltip: { trigger: 'item', formatter: '{b}：{c} 张（{d}%）' },
      // Names and counts in the legend: pie labels get cut on a phone.
      legend: { bottom: 0, type: 'scroll', formatter: (name: string) => `${name} ${(vendors.data ?? []).find((v) => vendorLabel(v.vendor) === name)?.total ?? 0} 张` },
      series: [
        {
          name: '加速卡',
          type: 'pie',
          radius: ['40%', '68%'],
          center: ['50%', '45%'],
          label: { show: false },
          data: (vendors.data ?? []).map((v) => ({ name: vendorLabel(v.vendor), value: v.total })),
        },
      ],
    }),
    [vendors.data],
  );
  const hoursOption = useMemo(
    () => ({
      tooltip: { trigger: 'axis', valueFormatter: (v: number) => `${v} 卡时` },
      grid: { left: 8, right: 16, top: 24, bottom: 8, containLabel: true },
      xAxis: { type: 'category', data: (cardHours.data ?? []).map((d) => dayjs(d.day).format('MM-DD')) },
      yAxis: { type: 'value', name: '卡时' },
      series: [{ name: '卡时', type: 'bar', data: (cardHours.data ?? []).map((d) => d.cardHours), itemStyle: { color: '#1677ff' } }],
    }),
    [cardHours.data],
  );
  const hasUtil = (util.data?.centers ?? []).some((c) => c.points.length);

  return (
    <PageContainer
      title="资源大屏"
      description="全平台算力的使用率、卡型分布与我的用量（自动刷新）。"
      // The menu has no entry for 资源概览 (console.md's top menu): the logo leads here, and this leads there.
      extra={
        <Button onClick={() => navigate('/resource')} data-testid="dash-to-overview">
          资源概览
        </Button>
      }
    >
      <Row gutter={[16, 16]}>
        <Col span={24}>
          <Card
            title="各分中心加速卡利用率"
            extra={<Segmented size="small" value={hours} onChange={(v) => setHours(Number(v))} options={RANGES} data-testid="dash-range" />}
          >
            {hasUtil ? (
              <EChart option={utilOption} height={300} testId="dash-util" />
            ) : (
              <Empty description="暂无采样数据（服务启动后每 30 秒采样一次）" />
            )}
          </Card>
        </Col>
        <Col xs={24} lg={10}>
          <Card title="按厂商的加速卡分布">
            <EChart option={vendorOption} height={300} testId="dash-vendors" />
          </Card>
        </Col>
        <Col xs={24} lg={14}>
          <Card title="我近 14 天的卡时">
            <EChart option={hoursOption} height={300} testId="dash-card-hours" />
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              卡时 = 任务运行时长（小时）× 占用卡数，按北京时间自然日统计。
            </Typography.Text>
          </Card>
        </Col>
      </Row>
    </PageContainer>
  );
}
