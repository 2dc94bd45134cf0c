/**
 * The part of ECharts the training curves use, and nothing else (loaded on demand by the chart, in the
 * `echarts` chunk of vite.config.ts, so no other page pays for it). SVG renderer: it needs no canvas, keeps
 * lines sharp on any screen and uses little memory on phones.
 */
import { LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

echarts.use([LineChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, SVGRenderer]);

export { echarts };
export type { EChartsType } from 'echarts/core';
