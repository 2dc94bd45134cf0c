import type { RecordPageQuery } from '@suanli/contracts';
import { Empty, Tabs, Typography } from 'antd';
import { useSearchParams } from 'react-router';
import { ListCard } from '../../shared/ui/paged-list';
import { PageContainer } from '../../shared/ui/page-container';
import { BalanceCard } from './balance-card';
import { ChargeTab } from './charge-tab';

type Tab = RecordPageQuery['type'];

/**
 * 消费记录 — the consume side lands with metering (docs/plan/19.md, "Billing and console"): a `consume-tab.tsx`
 * beside `charge-tab.tsx`, built from the same pieces (RecordFilters plus a task filter, DailyChart per day,
 * center and card type, the CSV helpers), replaces this placeholder.
 */
function ConsumeTab() {
  return (
    <Empty
      data-testid="consume-empty"
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={<Typography.Text type="secondary">按任务计量的消费记录即将在这里列出。</Typography.Text>}
    />
  );
}

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
