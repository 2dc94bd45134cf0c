/**
 * The part of ECharts the console draws with — the resource dashboard and the training curves (loaded on
 * demand, in the `echarts` chunk of vite.config.ts, so no other page pays for it). SVG renderer: no canvas,
 * sharp on any screen, light on phones.
 */
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

echarts.use([LineChart, BarChart, PieChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, SVGRenderer]);

export { echarts };
export type { EChartsType } from 'echarts/core';
