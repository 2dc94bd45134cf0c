import type { ConsumeStats } from '@suanli/contracts';
import { Empty, Skeleton, Typography } from 'antd';
import { useMemo } from 'react';
import { EChart } from '../../shared/charts/echart';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';

const COLORS = ['#1677ff', '#fa8c16', '#52c41a', '#722ed1', '#eb2f96', '#13c2c2', '#faad14', '#2f54eb'];

/** One ring of 卡时 shares with its caption above and its legend below (wrapping, never cut off). */
function Ring({ caption, data, testId }: { caption: string; data: { name: string; value: number }[]; testId: string }) {
  const option = useMemo(
    () => ({
      color: COLORS,
      tooltip: { trigger: 'item', formatter: (p: { name: string; value: number; percent: number }) => `${p.name}：${p.value.toFixed(2)} 卡时（${p.percent}%）` },
      legend: { bottom: 0, left: 'center', type: 'scroll', data: data.map((d) => d.name) },
      series: [{ name: caption, type: 'pie', radius: ['42%', '66%'], center: ['50%', '42%'], data, label: { show: false }, emphasis: { scale: false } }],
    }),
    [caption, data],
  );
  return (
    <div style={{ minWidth: 0 }} data-testid={testId} data-items={data.length}>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {caption}
      </Typography.Text>
      <EChart option={option} height={220} />
    </div>
  );
}

/**
 * 消费分布: consumption per center and per card type as two rings (卡时 and share in the tooltip), side by
 * side where there is room, one above the other on phones.
 */
export function ShareChart({ stats, loading }: { stats: ConsumeStats | undefined; loading: boolean }) {
  const screens = useBreakpoint();
  const centers = useMemo(() => (stats?.byCenter ?? []).map((c) => ({ name: c.subCenterName, value: Number(c.cardHours) })), [stats]);
  const types = useMemo(() => (stats?.byCardType ?? []).map((t) => ({ name: t.cardTypeName, value: Number(t.cardHours) })), [stats]);
  if (loading && !stats) return <Skeleton active paragraph={{ rows: 4 }} />;
  if (!stats?.totalSeconds) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="所选范围内没有消费" data-testid="consume-share-empty" />;
  return (
    <div
      style={{ display: 'grid', gridTemplateColumns: screens.sm ? '1fr 1fr' : '1fr', gap: 8 }}
      data-testid="consume-share"
      data-centers={stats.byCenter.length}
      data-card-types={stats.byCardType.length}
    >
      <Ring caption="按分中心" data={centers} testId="consume-share-center" />
      <Ring caption="按卡型" data={types} testId="consume-share-card-type" />
    </div>
  );
}
