import type { RecordDay } from '@suanli/contracts';
import { Empty, Skeleton } from 'antd';
import { useMemo } from 'react';
import { EChart } from '../../shared/charts/echart';

interface DailyChartProps {
  days: RecordDay[] | undefined;
  loading: boolean;
  /** What a bar is: `充值金额（元）`; its values are each day's `amount`, or `cardHours` when `bars` says so. */
  bars: { name: string; of: 'amount' | 'cardHours' };
  /** A line over the bars on its own axis (`卡时`), optional. */
  line?: { name: string; of: 'amount' | 'cardHours' };
  empty: string;
  testId: string;
  /** What a day's `count` counts, in the tooltip: `笔` (purchases), `个任务` (consumption). */
  countUnit?: string;
}

/**
 * Records per calendar day: bars (and a line on a second axis), a tooltip with the day's count. ECharts
 * loads with the first chart drawn (the `echarts` chunk), not with the page.
 */
export function DailyChart({ days, loading, bars, line, empty, testId, countUnit = '笔' }: DailyChartProps) {
  const option = useMemo(() => {
    const list = days ?? [];
    const value = (d: RecordDay, of: 'amount' | 'cardHours') => Number(of === 'amount' ? (d.amount ?? '0') : d.cardHours);
    return {
      // Room above the plot for the legend and, below it, the axes' names (they overlapped on phones).
      grid: { left: 8, right: 8, top: 64, bottom: 8, containLabel: true },
      legend: { top: 0, data: [bars.name, ...(line ? [line.name] : [])] },
      tooltip: {
        trigger: 'axis',
        // Each day with its count: what a bar alone does not say.
        formatter: (items: { dataIndex: number; marker: string; seriesName: string; value: number }[]) => {
          const d = list[items[0]?.dataIndex ?? 0];
          if (!d) return '';
          return [`${d.day}（${d.count} ${countUnit}）`, ...items.map((i) => `${i.marker}${i.seriesName}：${i.value.toFixed(2)}`)].join('<br/>');
        },
      },
      xAxis: { type: 'category', data: list.map((d) => d.day.slice(5)), axisTick: { alignWithLabel: true } },
      yAxis: [{ type: 'value', name: bars.name, nameTextStyle: { align: 'left' } }, ...(line ? [{ type: 'value', name: line.name, splitLine: { show: false }, nameTextStyle: { align: 'right' } }] : [])],
      series: [
        { name: bars.name, type: 'bar', data: list.map((d) => value(d, bars.of)), itemStyle: { color: '#1677ff' }, barMaxWidth: 28 },
        ...(line ? [{ name: line.name, type: 'line', yAxisIndex: 1, data: list.map((d) => value(d, line.of)), itemStyle: { color: '#fa8c16' }, symbolSize: 6 }] : []),
      ],
    };
  }, [days, bars, line, countUnit]);
  if (loading && !days) return <Skeleton active paragraph={{ rows: 4 }} />;
  if (!days?.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} data-testid={`${testId}-empty`} />;
  return (
    <div data-testid={testId} data-days={days.length}>
      <EChart option={option} height={240} />
    </div>
  );
}
