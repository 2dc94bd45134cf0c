import { ListCard } from '../../shared/ui/paged-list';
import { PageContainer } from '../../shared/ui/page-container';
import { OrderTable } from '../order/order-list-page';
import { OperatorOnly } from './operator-only';

const TITLE = '订单';

/**
 * 运营管理 › 订单 (/admin/orders): every user's orders with the buyer's username and contact, filtered by
 * status, orderNo, buyer, center and pay channel; 确认到账 on offline transfers (an audited action).
 */
export function AdminOrdersPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="查看全部用户的算力卡订单。线下转账的订单在核对到账后点击「确认到账」，算力立即发放给买家，并记入审计日志。">
        <ListCard>
          <OrderTable scope="all" />
        </ListCard>
      </PageContainer>
    </OperatorOnly>
  );
}
