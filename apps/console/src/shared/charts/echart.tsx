import { useEffect, useRef, useState } from 'react';
import type { EChartsType } from './echarts';

/**
 * One ECharts chart that follows `option` and its box's size. ECharts loads with the first chart drawn,
 * never with the page (the `echarts` chunk).
 */
export function EChart({ option, height = 300, testId }: { option: object; height?: number; testId?: string }) {
  const el = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<EChartsType | null>(null);

  useEffect(() => {
    let alive = true;
    let instance: EChartsType | null = null;
    let observer: ResizeObserver | null = null;
    void import('./echarts').then(({ echarts }) => {
      if (!alive || !el.current) return;
      instance = echarts.init(el.current, undefined, { renderer: 'svg' });
      if (typeof ResizeObserver !== 'undefined') {
        observer = new ResizeObserver(() => instance?.resize());
        observer.observe(el.current);
      }
      setChart(instance);
    });
    return () => {
      alive = false;
      observer?.disconnect();
      instance?.dispose();
    };
  }, []);

  useEffect(() => {
    chart?.setOption({ animation: false, ...option }, true);
  }, [chart, option]);

  return <div ref={el} style={{ width: '100%', height }} data-testid={testId} data-drawn={chart ? 'yes' : 'no'} />;
}
