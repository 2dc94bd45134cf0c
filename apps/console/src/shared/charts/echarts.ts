/**
 * The part of ECharts the resource dashboard draws with (loaded on demand, in the `echarts` chunk of
 * vite.config.ts, so no other page pays for it). SVG renderer: no canvas, sharp on any screen, light on phones.
 */
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

echarts.use([LineChart, BarChart, PieChart, GridComponent, TooltipComponent, LegendComponent, SVGRenderer]);

export { echarts };
export type { EChartsType } from 'echarts/core';
