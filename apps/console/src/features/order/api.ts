/** 订单 / 算力卡 calls (OrderApi descriptors), shared by /pay, /order, /expense and 运营管理 › 订单. */
import { FoundationApi, OrderApi, type OrderPageQuery, type OrderPre, type PayChannel } from '@suanli/contracts';
import { call } from '../../app/request';


export function fetchCenters() {
  return call(FoundationApi.centers);
}

export function listProducts(subCenterId: string, cardTypeId: string) {
  return call(OrderApi.products, { params: { subCenterId }, query: { cardTypeId } });
}

/** Creates the UNPAID order; the server computes the amount (the body carries no price). */
export function preOrder(body: OrderPre) {
  return call(OrderApi.pre, { body: { productId: body.productId, quantity: body.quantity, ...(body.teamId ? { teamId: body.teamId } : {}) } });
}

export function pageOrders(query: OrderPageQuery) {
  return call(OrderApi.page, { body: query });
}

export function getOrder(id: string) {
  return call(OrderApi.detail, { params: { id } });
}

export function cancelOrder(id: string) {
  return call(OrderApi.cancel, { params: { id } });
}

/** Which channels this deployment offers: 支付宝支付 is shown only when the gateway has Alipay configured. */
export function fetchPayChannels() {
  return call(OrderApi.channels);
}

/** `silent`: the page shows a refused channel (2505) itself, beside the other channel. */
export function payOrder(id: string, channel: PayChannel) {
  return call(OrderApi.pay, { params: { id }, body: { channel } }, { silent: true });
}

export function confirmOrder(id: string) {
  return call(OrderApi.confirm, { params: { id } });
}
