import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The payment route group (/pay, /pay/alipay).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const PayPage = underConstruction({ title: '充值', description: '选择分中心与卡型的算力卡，确认订单后完成支付。' });
export const AlipayPage = underConstruction({ title: '支付宝支付', description: '跳转支付宝完成付款，支付结果将自动同步到订单。' });
