/** 资源 calls (base RESOURCE_BASE) through the console's one request pipeline. */
import { RESOURCE_BASE, type DailyCardHours, type ResourceOverview, type UtilizationSeries, type VendorCards } from '@suanli/contracts';
import { request } from '../../app/request';

export function fetchOverview(): Promise<ResourceOverview> {
  return request.get<ResourceOverview>(`${RESOURCE_BASE}/overview`);
}

export function fetchUtilization(hours: number): Promise<UtilizationSeries> {
  return request.get<UtilizationSeries>(`${RESOURCE_BASE}/utilization`, { params: { hours } });
}

export function fetchVendors(): Promise<VendorCards> {
  return request.get<VendorCards>(`${RESOURCE_BASE}/vendors`);
}

export function fetchCardHours(days: number): Promise<DailyCardHours> {
  return request.get<DailyCardHours>(`${RESOURCE_BASE}/card-hours`, { params: { days } });
}
