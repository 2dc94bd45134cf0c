import type { RecordPageQuery } from '@suanli/contracts';
import { Tabs } from 'antd';
import { useSearchParams } from 'react-router';
import { ListCard } from '../../shared/ui/paged-list';
import { PageContainer } from '../../shared/ui/page-container';
import { BalanceCard } from './balance-card';
import { ChargeTab } from './charge-tab';
import { ConsumeTab } from './consume-tab';

type Tab = RecordPageQuery['type'];

/** 费用明细 (/expense, the menu's 费用中心 › 费用明细): the balance per bucket, then 消费记录 and 充值记录. */
export function ExpensePage() {
  const [params, setParams] = useSearchParams();
  const tab: Tab = params.get('tab') === 'charge' ? 'charge' : 'consume';
  return (
    <PageContainer title="费用明细" description="查看剩余算力、充值记录与消费记录。">
      <BalanceCard />
      <ListCard>
        <Tabs
          activeKey={tab}
          onChange={(k) => setParams({ tab: k }, { replace: true })}
          destroyOnHidden
          items={[
            { key: 'consume', label: <span data-testid="expense-tab-consume">消费记录</span>, children: <ConsumeTab /> },
            { key: 'charge', label: <span data-testid="expense-tab-charge">充值记录</span>, children: <ChargeTab /> },
          ]}
        />
      </ListCard>
    </PageContainer>
  );
}
