import type { CompPowerBucket } from '@suanli/contracts';
import { Alert, Button, Card, Space, Statistic, Table, Tag, Typography, type TableColumnsType } from 'antd';
import type { HTMLAttributes } from 'react';
import { useNavigate } from 'react-router';
import { useCompPowers } from '../../app/comp-power';
import { useUserStore } from '../../app/stores/user-store';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatTime } from '../../shared/time';

const SOURCE_LABELS: Record<CompPowerBucket['source'], string> = { order: '购买', grant: '赠送' };
const muted = { fontSize: 12, color: 'rgba(0,0,0,0.45)' } as const;

/**
 * The balance: the normalised total in 标准卡时, then each bucket in its own card-hours — a task draws only
 * from buckets of its center and card type — with its factor and what it counts as in the total.
 */
export function BalanceCard() {
  const userId = useUserStore((s) => s.userInfo?.id);
  const powers = useCompPowers(userId);
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const columns: TableColumnsType<CompPowerBucket> = screens.sm
    ? [
        { title: '分中心 · 卡型', key: 'center', width: 220, render: (_v, b) => `${b.subCenterName} · ${b.cardTypeName}` },
        { title: '剩余 / 总计（卡时）', key: 'hours', width: 150, render: (_v, b) => <span data-testid="balance-remaining">{b.remaining} / {b.granted}</span> },
        { title: '折算系数', dataIndex: 'standardFactor', key: 'factor', width: 90 },
        { title: '折合标准卡时', dataIndex: 'standardRemaining', key: 'standard', width: 120, render: (v: string) => <span data-testid="balance-standard">{v}</span> },
        { title: '到期时间', dataIndex: 'expireTime', key: 'expireTime', width: 170, render: (v: number) => formatTime(v) },
        { title: '来源', dataIndex: 'source', key: 'source', width: 80, render: (v: CompPowerBucket['source']) => <Tag>{SOURCE_LABELS[v]}</Tag> },
      ]
    : [
        {
          title: '算力',
          key: 'bucket',
          render: (_v, b) => (
            <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
              <div>
                {b.subCenterName} · {b.cardTypeName}
              </div>
              <div style={muted}>
                {SOURCE_LABELS[b.source]} · {formatTime(b.expireTime)} 到期
              </div>
            </div>
          ),
        },
        {
          title: '剩余（卡时）',
          key: 'hours',
          width: 140,
          render: (_v, b) => (
            <div>
              <span data-testid="balance-remaining">
                {b.remaining} / {b.granted}
              </span>
              <div style={muted} data-testid="balance-standard">
                折合 {b.standardRemaining} 标准卡时
              </div>
            </div>
          ),
        },
      ];
  return (
    <Card style={{ marginBottom: 16 }} data-testid="expense-balance">
      <Space wrap align="center" style={{ justifyContent: 'space-between', width: '100%', marginBottom: 12 }}>
        <div>
          <Statistic title="剩余算力" value={powers.data?.standardTotal ?? '--'} suffix="标准卡时" data-testid="expense-standard-total" />
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            各卡型的卡时按折算系数折合为标准卡时后合计；任务只扣减所在分中心、所用卡型的卡时，每个任务的扣减见下方“消费记录”。
          </Typography.Text>
        </div>
        <Button type="primary" onClick={() => navigate('/pay')} data-testid="expense-buy">
          购买算力
        </Button>
      </Space>
      {/* Held by the center's scheduler (issue 25): jobs submitted over SSH or the web shell wait there too. */}
      {powers.data?.held?.map((h) => (
        <Alert
          key={h.subCenterId}
          type="warning"
          showIcon
          style={{ marginBottom: 12 }}
          data-testid="balance-held"
          message={`算力余额不足，${h.subCenterName}已限制您的集群账号 ${h.account} 提交新作业（购买或获赠算力后自动解除）`}
          description="通过 SSH 或网页终端提交的作业会在该分中心排队等待，直到有可用算力。"
        />
      ))}
      <Table<CompPowerBucket>
        rowKey="id"
        size="small"
        tableLayout="fixed"
        pagination={false}
        loading={powers.isLoading}
        columns={columns}
        scroll={screens.sm ? { x: 830 } : undefined}
        dataSource={powers.data?.items ?? []}
        onRow={(b) => ({ 'data-testid': 'balance-row', 'data-id': b.id }) as HTMLAttributes<HTMLElement>}
        locale={{ emptyText: '暂无可用算力，购买算力卡后显示在这里' }}
      />
    </Card>
  );
}
