import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The order route group (/order).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const OrderPage = underConstruction({ title: '订单明细', description: '按订单状态查看算力卡购买订单，完成待支付订单或查看支付详情。' });
