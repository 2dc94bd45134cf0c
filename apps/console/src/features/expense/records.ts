/**
 * 费用中心's logic without React: filter options, the date range sent to the server, the chart's days and the
 * CSV of charge records. The consume side (消费记录) reuses the filters, the days and `toCsv`.
 */
import type { ChargeRecord, ConsumeRecord, RecordDay, SubCenter } from '@suanli/contracts';
import type { Dayjs } from 'dayjs';
import { toCsv } from '../../shared/csv';
import { formatTime } from '../../shared/time';
import { CHANNEL_LABELS } from '../order/order-view';

/** The filters both record kinds share (a task filter joins them on the consume side). */
export interface RecordFilterValues {
  subCenterId?: string;
  cardTypeId?: string;
  /** 消费记录 only: one task's records. */
  taskId?: string;
  /** From (inclusive) … to (exclusive), ms. */
  startTime?: number;
  endTime?: number;
}

/** Card types to filter by: the chosen center's, or every center's by id (the first name wins) when none is chosen. */
export function cardTypeOptions(centers: SubCenter[], centerId: string | undefined): { label: string; value: string }[] {
  const byId = new Map<string, string>();
  for (const c of centers) if (!centerId || c.id === centerId) for (const t of c.cardTypes) if (!byId.has(t.id)) byId.set(t.id, t.name);
  return [...byId].map(([value, label]) => ({ value, label }));
}

/** A picked range of days → from the first day's start to the start of the day after the last (local time). */
export function rangeTimes(range: [Dayjs | null, Dayjs | null] | null): Pick<RecordFilterValues, 'startTime' | 'endTime'> {
  return {
    startTime: range?.[0]?.startOf('day').valueOf(),
    endTime: range?.[1] ? range[1].add(1, 'day').startOf('day').valueOf() : undefined,
  };
}

const DAY_MS = 24 * 3600_000;
/** A chart spans at most this many days with every day on the axis; longer spans show only days with records. */
const FILL_MAX_DAYS = 400;
const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
const dayText = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/**
 * Every calendar day from the first to the last (or `from` … `to` when given, `yyyy-MM-dd`), those without
 * records at zero — so a bar chart's gaps are real days without purchases, not missing ones.
 */
export function fillDays(days: RecordDay[], from?: string, to?: string): RecordDay[] {
  if (!days.length && !(from && to)) return [];
  const first = from ? dayNumber(from) : dayNumber(days[0].day);
  const last = to ? dayNumber(to) : dayNumber(days[days.length - 1].day);
  if (last < first || last - first >= FILL_MAX_DAYS) return days;
  const known = new Map(days.map((d) => [d.day, d]));
  const out: RecordDay[] = [];
  for (let n = first; n <= last; n++) {
    const day = dayText(n);
    out.push(known.get(day) ?? { day, count: 0, cardHours: '0.00', amount: '0.00' });
  }
  return out;
}

export const CHARGE_CSV_HEADER = ['充值时间', '订单编号', '算力分中心', '卡型', '卡时', '金额（元）', '支付方式', '充值记录编号'] as const;

/** 充值记录 as a CSV file Excel opens (UTF-8 with BOM): one row per record, as the table shows them. */
export function chargeCsv(rows: ChargeRecord[]): string {
  return toCsv(
    CHARGE_CSV_HEADER,
    rows.map((r) => [formatTime(r.createTime), r.orderNo, r.subCenterName, r.cardTypeName, r.cardHours, r.amount, CHANNEL_LABELS[r.payChannel], r.id]),
  );
}

export const CONSUME_CSV_HEADER = ['日期', '任务名称', '任务类别', '任务编号', '算力分中心', '卡型', '计费卡数', '开始时间', '结束时间', '消耗卡时', '消耗卡秒', '消费记录编号'] as const;
export const TASK_KIND_LABELS: Record<string, string> = { training: '训练任务', slurm: 'Slurm 作业', outside: '外部作业' };

/**
 * 消费记录 as a CSV file (UTF-8 with BOM): one row per record (a task's draws from one bucket on one day). The
 * exact card-seconds beside the rounded 卡时, so sums in a spreadsheet match the balance.
 */
export function consumeCsv(rows: ConsumeRecord[]): string {
  return toCsv(
    CONSUME_CSV_HEADER,
    rows.map((r) => [
      r.day,
      r.taskName,
      TASK_KIND_LABELS[r.taskKind] ?? r.taskKind,
      r.taskId,
      r.subCenterName,
      r.cardTypeName,
      String(r.billedCards),
      formatTime(r.startTime),
      formatTime(r.endTime),
      r.cardHours,
      String(r.cardSeconds),
      r.id,
    ]),
  );
}

/** The task's detail page in the console, by the record's task kind. */
export function taskPath(taskKind: string, taskId: string): string {
  // The type segment is only the page's fallback for its back link; the page reads the task's own type.
  // An outside job (issue 25) has no detail page: its row in 任务管理 › 外部作业.
  if (taskKind === 'outside') return '/slurm-task?tab=outside';
  return taskKind === 'slurm' ? `/slurm-task/detail/custom/${encodeURIComponent(taskId)}` : `/training/detail/train/${encodeURIComponent(taskId)}`;
}

/** `充值记录-20260301-1530.csv`. */
export function csvFileName(kind: string, now: Dayjs): string {
  return `${kind}-${now.format('YYYYMMDD-HHmm')}.csv`;
}
