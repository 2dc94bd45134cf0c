import type { ComparedTask, Task } from '@suanli/contracts';
import { formatTime } from '../../shared/time';
import { formatMinutes, runningTime } from '../../shared/task/task-view';
import { toSeries } from './components/metrics-chart';
import { cardsText } from './task-view';

/**
 * 任务对比's pure half: which parameters are compared, their text per run, whether the runs differ in them,
 * and the curves regrouped by scalar (one chart per scalar, one line per run).
 */

/**
 * The runs' colours, in the order of the columns: a run's line in every chart and the dot in its column
 * head have the same one (ECharts' default palette, given explicitly so both sides agree).
 */
export const RUN_COLORS = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de'];

/** A run's name in headers and legends: its position, so two runs of the same name stay apart. */
export const runLabel = (t: Pick<ComparedTask, 'name'>, i: number) => `${i + 1}. ${t.name}`;

export interface CompareRow {
  key: string;
  label: string;
  /** The value of each run, as text (what is compared and shown). */
  values: string[];
  differs: boolean;
  /** Long text shown monospaced (command, environment). */
  mono?: boolean;
  /** Never a difference: every run has its own (创建时间). */
  own?: boolean;
}

/** `NAME=value` lines, sorted by name, so the same variables in another order are not a difference. */
const envText = (t: ComparedTask) =>
  [...t.env]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e) => `${e.name}=${e.value}`)
    .join('\n') || '—';

/** 结果: the state's label, the exit code when there is one, and the reason. */
function resultText(t: ComparedTask, stateLabel: (s: string) => string): string {
  const parts = [stateLabel(t.state)];
  if (t.exitCode != null) parts.push(`退出码 ${t.exitCode}`);
  if (t.reason && t.state !== 'SUCCEEDED' && !parts.includes(t.reason)) parts.push(t.reason);
  return parts.join('，');
}

const mountsText = (t: ComparedTask) => t.mounts.map((m) => `${m.kind === 'dataset' ? '数据集' : '模型'} ${m.name} v${m.version}`).join('\n') || '—';

/** What a family compares beyond what every task has: training's image and mounts, Slurm's script. */
export interface CompareKind {
  /** The card request as one phrase. */
  cards: (t: Task) => string;
  /** 启动命令 (training) or 作业脚本 (Slurm). */
  commandLabel: string;
  /** Training only: 镜像 and 挂载. */
  training: boolean;
}

export const TRAINING_COMPARE: CompareKind = { cards: cardsText, commandLabel: '启动命令', training: true };

/** The parameters side by side, in reading order; `differs` when not every run has the same text. */
export function compareRows(tasks: ComparedTask[], stateLabel: (s: string) => string, now: number, kind: CompareKind = TRAINING_COMPARE): CompareRow[] {
  const rows: (Omit<CompareRow, 'differs'> | false)[] = [
    { key: 'result', label: '结果', values: tasks.map((t) => resultText(t, stateLabel)) },
    { key: 'duration', label: '运行时长', values: tasks.map((t) => runningTime(t, now)) },
    { key: 'center', label: '分中心', values: tasks.map((t) => t.subCenterName || t.subCenterId) },
    { key: 'cards', label: kind.training ? '卡型与卡数' : '资源', values: tasks.map((t) => kind.cards(t)) },
    kind.training && { key: 'image', label: '镜像', values: tasks.map((t) => t.imageName || t.imageId || '—') },
    { key: 'command', label: kind.commandLabel, values: tasks.map((t) => t.command), mono: true },
    { key: 'env', label: '环境变量', values: tasks.map(envText), mono: true },
    kind.training && { key: 'mounts', label: '挂载', values: tasks.map(mountsText) },
    { key: 'maxDuration', label: '最长运行时长', values: tasks.map((t) => formatMinutes(t.maxDurationMinutes)) },
    { key: 'workDir', label: '工作目录', values: tasks.map((t) => t.workDir || '—'), mono: true },
    { key: 'createTime', label: '创建时间', values: tasks.map((t) => formatTime(t.createTime)), own: true },
  ];
  return rows.filter((r) => r !== false).map((r) => ({ ...r, differs: !r.own && new Set(r.values).size > 1 }));
}

/**
 * Lines that differ (environment, command or script): a line not present in every run — a variable one run
 * lacks or sets to another value, a changed `#SBATCH --mem`. The console marks these lines, not the whole cell.
 */
export function differingLines(values: string[]): Set<string> {
  const lines = values.map((v) => new Set(v.split('\n')));
  const out = new Set<string>();
  for (const set of lines) for (const l of set) if (!lines.every((s) => s.has(l))) out.add(l);
  return out;
}

export interface MetricChart {
  /** The scalar's name (loss, acc…). */
  metric: string;
  /** One line per run that has this scalar, in the runs' order; `run` is the run's index (its colour). */
  lines: { run: number; name: string; data: [number, number][] }[];
}

/** The curves regrouped: one chart per scalar any run wrote, a line per run that wrote it. */
export function metricCharts(tasks: ComparedTask[]): MetricChart[] {
  const charts = new Map<string, MetricChart>();
  tasks.forEach((t, run) => {
    for (const s of toSeries(t.metrics)) {
      let c = charts.get(s.name);
      if (!c) charts.set(s.name, (c = { metric: s.name, lines: [] }));
      c.lines.push({ run, name: runLabel(t, run), data: s.data });
    }
  });
  return [...charts.values()];
}
