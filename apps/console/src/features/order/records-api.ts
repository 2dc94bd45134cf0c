/**
 * 充值记录 calls (ORDER_BASE `/records/…`): still built by hand until the records routes have descriptors
 * (listed in lint/legacy-calls.json). Re-exported by ./api for 费用明细.
 */
import { ORDER_BASE, type ChargeRecord, type RecordDay, type RecordPage, type RecordPageQuery, type RecordStatsQuery } from '@suanli/contracts';
import { request } from '../../app/request';

export function pageRecords(query: RecordPageQuery): Promise<RecordPage> {
  return request.post<RecordPage>(`${ORDER_BASE}/records/action/page`, { data: query });
}

export function getChargeRecord(id: string): Promise<ChargeRecord> {
  return request.get<ChargeRecord>(`${ORDER_BASE}/records/charge/${encodeURIComponent(id)}`);
}

/** Totals per calendar day (UTC+8) of the records under these filters: 费用中心's chart. */
export function recordDays(query: RecordStatsQuery): Promise<RecordDay[]> {
  return request.post<RecordDay[]>(`${ORDER_BASE}/records/action/daily`, { data: query });
}
