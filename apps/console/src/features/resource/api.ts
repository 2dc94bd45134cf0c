/** 资源 calls through the route descriptors (ResourceApi). */
import { ResourceApi } from '@suanli/contracts';
import { call } from '../../app/request';

export function fetchOverview() {
  return call(ResourceApi.overview);
}

export function fetchUtilization(hours: number) {
  return call(ResourceApi.utilization, { query: { hours } });
}

export function fetchVendors() {
  return call(ResourceApi.vendors);
}

export function fetchCardHours(days: number) {
  return call(ResourceApi.cardHours, { query: { days } });
}
