/** 订单 / 算力卡 calls (base ORDER_BASE), shared by /pay, /order and /expense (its records: features/expense/api.ts). */
import {
  FOUNDATION_BASE,
  ORDER_BASE,
  type Order,
  type OrderDetail,
  type OrderPage,
  type OrderPageQuery,
  type OrderPre,
  type PayChannel,
  type PayChannels,
  type PayResult,
  type Product,
  type SubCenter,
} from '@suanli/contracts';
import { request } from '../../app/request';

const orderUrl = (id: string) => `${ORDER_BASE}/orders/${encodeURIComponent(id)}`;

export function fetchCenters(): Promise<SubCenter[]> {
  return request.get<SubCenter[]>(`${FOUNDATION_BASE}/sub-centers/action/list`);
}

export function listProducts(subCenterId: string, cardTypeId: string): Promise<Product[]> {
  return request.get<Product[]>(`${ORDER_BASE}/sub-center-card/${encodeURIComponent(subCenterId)}/card-type`, { params: { cardTypeId } });
}

/** Creates the UNPAID order; the server computes the amount (the body carries no price). */
export function preOrder(body: OrderPre): Promise<Order> {
  return request.post<Order>(`${ORDER_BASE}/orders/pre`, { data: { productId: body.productId, quantity: body.quantity } });
}

export function pageOrders(query: OrderPageQuery): Promise<OrderPage> {
  return request.post<OrderPage>(`${ORDER_BASE}/orders/action/page`, { data: query });
}

export function getOrder(id: string): Promise<OrderDetail> {
  return request.get<OrderDetail>(orderUrl(id));
}

export function cancelOrder(id: string): Promise<Order> {
  return request.post<Order>(`${orderUrl(id)}/cancel`, { data: {} });
}

/** Which channels this deployment offers: 支付宝支付 is shown only when the gateway has Alipay configured. */
export function fetchPayChannels(): Promise<PayChannels> {
  return request.get<PayChannels>(`${ORDER_BASE}/pay/channels`);
}

/** `silent`: the page shows a refused channel (2505) itself, beside the other channel. */
export function payOrder(id: string, channel: PayChannel): Promise<PayResult> {
  return request.post<PayResult>(`${orderUrl(id)}/pay`, { data: { channel }, silent: true });
}

export function confirmOrder(id: string): Promise<Order> {
  return request.post<Order>(`${orderUrl(id)}/confirm`, { data: {} });
}
