/** 费用中心's calls (ORDER_BASE, route descriptors `RecordApi`): the records, their per-day and per-center totals. */
import { RecordApi, type ConsumeStatsQuery, type RecordPageQuery, type RecordStatsQuery } from '@suanli/contracts';
import { call } from '../../app/request';

export function pageRecords(query: RecordPageQuery) {
  return call(RecordApi.page, { body: query });
}

export function getChargeRecord(id: string) {
  return call(RecordApi.charge, { params: { id } });
}

export function getConsumeRecord(id: string) {
  return call(RecordApi.consume, { params: { id } });
}

/** Totals per calendar day (UTC+8) of the records under these filters: the per-day charts. */
export function recordDays(query: RecordStatsQuery) {
  return call(RecordApi.daily, { body: query });
}

/** Consumption per center and per card type (and in all) under these filters: the 消费分布 charts. */
export function consumeStats(query: ConsumeStatsQuery) {
  return call(RecordApi.consumeStats, { body: query });
}
