import type { JobState, MetricPoint } from '@suanli/contracts';
import { Alert, Card, Empty, Typography } from 'antd';
import { useMemo } from 'react';
import { EChart } from '../../../shared/charts/echart';
import { useMetricsFollow } from '../../../shared/task/follow';
import { trainingTasks } from '../api';

interface Series {
  name: string;
  data: [number, number][];
}

/** One series per scalar key, plotted against `step` (the point's index when a line has none). */
export function toSeries(points: MetricPoint[]): Series[] {
  const byKey = new Map<string, [number, number][]>();
  points.forEach((p, i) => {
    const x = typeof p.step === 'number' ? p.step : i;
    for (const [k, v] of Object.entries(p)) {
      if (k === 'step' || typeof v !== 'number' || !Number.isFinite(v)) continue;
      let data = byKey.get(k);
      if (!data) byKey.set(k, (data = []));
      data.push([x, v]);
    }
  });
  return [...byKey.entries()].map(([name, data]) => ({ name, data }));
}

/** 训练曲线: the scalars the job appends to $SUANLI_METRICS_FILE, live while it runs. */
export function MetricsPanel({ taskId, state }: { taskId: string; state: JobState }) {
  const metrics = useMetricsFollow(taskId, state, trainingTasks.readMetrics);
  const series = useMemo(() => toSeries(metrics.points), [metrics.points]);
  return (
    <Card title="训练曲线">
      {metrics.error && <Alert type="warning" showIcon style={{ marginBottom: 12 }} title={`训练曲线读取失败：${metrics.error}`} />}
      {metrics.truncated && <Alert type="info" showIcon style={{ marginBottom: 12 }} title="数据点较多，仅绘制前 5000 个。" />}
      <div data-testid="training-chart" data-series={series.map((s) => s.name).join(',')} data-points={metrics.points.length}>
        {series.length ? (
          <LineCurves series={series} />
        ) : (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={
              <Typography.Text type="secondary">
                暂无训练曲线数据。任务可向环境变量 <Typography.Text code>SUANLI_METRICS_FILE</Typography.Text> 指向的文件追加 JSON 行，例如{' '}
                <Typography.Text code>{'{"step":10,"loss":0.42}'}</Typography.Text>
              </Typography.Text>
            }
          />
        )}
      </div>
    </Card>
  );
}

function LineCurves({ series }: { series: Series[] }) {
  const option = useMemo(
    () => ({
      tooltip: { trigger: 'axis' },
      legend: { type: 'scroll', top: 0 },
      grid: { left: 12, right: 24, top: 36, bottom: 48, containLabel: true },
      xAxis: { type: 'value', name: '步数', nameLocation: 'middle', nameGap: 24, min: 'dataMin', max: 'dataMax' },
      yAxis: { type: 'value', scale: true },
      dataZoom: [{ type: 'inside' }, { type: 'slider', height: 16, bottom: 4 }],
      series: series.map((s) => ({ name: s.name, type: 'line', showSymbol: false, data: s.data })),
    }),
    [series],
  );
  return <EChart option={option} height={320} />;
}
