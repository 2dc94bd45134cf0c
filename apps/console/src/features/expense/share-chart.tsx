import type { ConsumeStats } from '@suanli/contracts';
import { Empty, Skeleton } from 'antd';
import { useMemo } from 'react';
import { EChart } from '../../shared/charts/echart';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';

const COLORS = ['#1677ff', '#fa8c16', '#52c41a', '#722ed1', '#eb2f96', '#13c2c2', '#faad14', '#2f54eb'];

/**
 * 消费分布: two rings — consumption per center and per card type, in 卡时 with each share. Side by side on
 * wide screens, one above the other on phones (each ring with its legend below it).
 */
export function ShareChart({ stats, loading }: { stats: ConsumeStats | undefined; loading: boolean }) {
  const screens = useBreakpoint();
  const wide = Boolean(screens.md);
  const option = useMemo(() => {
    const centers = (stats?.byCenter ?? []).map((c) => ({ name: c.subCenterName, value: Number(c.cardHours) }));
    const types = (stats?.byCardType ?? []).map((t) => ({ name: t.cardTypeName, value: Number(t.cardHours) }));
    const ring = (name: string, data: { name: string; value: number }[], center: [string, string]) => ({
      name,
      type: 'pie',
      radius: wide ? ['32%', '52%'] : ['38%', '62%'],
      center,
      data,
      label: { show: false },
      // Each ring's own title in its hole.
      emphasis: { scale: false },
    });
    return {
      color: COLORS,
      tooltip: { trigger: 'item', formatter: (p: { seriesName: string; name: string; value: number; percent: number }) => `${p.seriesName}<br/>${p.name}：${p.value.toFixed(2)} 卡时（${p.percent}%）` },
      title: wide
        ? [
            { text: '按分中心', left: '25%', top: '38%', textAlign: 'center', textStyle: { fontSize: 13, fontWeight: 'normal' } },
            { text: '按卡型', left: '75%', top: '38%', textAlign: 'center', textStyle: { fontSize: 13, fontWeight: 'normal' } },
          ]
        : [
            { text: '按分中心', left: '50%', top: '20%', textAlign: 'center', textStyle: { fontSize: 12, fontWeight: 'normal' } },
            { text: '按卡型', left: '50%', top: '70%', textAlign: 'center', textStyle: { fontSize: 12, fontWeight: 'normal' } },
          ],
      legend: wide
        ? [
            { bottom: 0, left: '25%', orient: 'vertical', data: centers.map((c) => c.name) },
            { bottom: 0, left: '75%', orient: 'vertical', data: types.map((t) => t.name) },
          ]
        : { bottom: 0, type: 'scroll', data: [...centers, ...types].map((x) => x.name) },
      series: wide
        ? [ring('按分中心', centers, ['25%', '40%']), ring('按卡型', types, ['75%', '40%'])]
        : [ring('按分中心', centers, ['50%', '22%']), ring('按卡型', types, ['50%', '72%'])],
    };
  }, [stats, wide]);
  if (loading && !stats) return <Skeleton active paragraph={{ rows: 4 }} />;
  if (!stats?.totalSeconds) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="所选范围内没有消费" data-testid="consume-share-empty" />;
  return (
    <div data-testid="consume-share" data-centers={stats.byCenter.length} data-card-types={stats.byCardType.length}>
      <EChart option={option} height={wide ? 280 : 420} />
    </div>
  );
}
