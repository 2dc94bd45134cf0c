import { type ConsumeRecord, type TeamDetail, type TeamUsage } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, InputNumber, List, Skeleton, Space, Statistic, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { EChart } from '../../shared/charts/echart';
import { formatTime } from '../../shared/time';
import { setMemberLimit, teamCompPowers, teamConsumeRecords, teamUsage } from './api';

const COLORS = ['#1677ff', '#52c41a', '#fa8c16', '#722ed1', '#13c2c2', '#eb2f96'];

/** Members' card-hours this month, one stacked bar per member, a color per card type. */
function UsageChart({ usage }: { usage: TeamUsage }) {
  const option = useMemo(
    () => ({
      grid: { left: 8, right: 8, top: 40, bottom: 8, containLabel: true },
      legend: { top: 0, data: usage.cardTypes.map((c) => c.cardTypeName) },
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      xAxis: { type: 'category', data: usage.members.map((m) => m.username || '已退出成员'), axisLabel: { interval: 0, overflow: 'truncate', width: 72 } },
      yAxis: { type: 'value', name: '卡时' },
      series: usage.cardTypes.map((c, i) => ({
        name: c.cardTypeName,
        type: 'bar',
        stack: 'usage',
        barMaxWidth: 32,
        itemStyle: { color: COLORS[i % COLORS.length] },
        data: usage.members.map((m) => Number(m.byCardType.find((b) => b.cardTypeId === c.cardTypeId)?.cardHours ?? 0)),
      })),
    }),
    [usage],
  );
  if (!usage.cardTypes.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="本月还没有团队付费的任务" data-testid="team-usage-empty" />;
  return <EChart option={option} height={260} testId="team-usage-chart" />;
}

/** A member's limit: shown to everyone, edited by owners and admins (empty = 不限). */
function LimitCell({ teamId, userId, limit, editable }: { teamId: string; userId: string; limit: number | null; editable: boolean }) {
  const [value, setValue] = useState<number | null>(limit);
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: () => setMemberLimit(teamId, userId, value ?? undefined),
    onSuccess: () => {
      toast.success(value === null ? '已取消该成员的每月限额' : `每月限额已设为 ${value} 卡时`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.team.root });
    },
  });
  if (!editable) return <span>{limit === null ? '不限' : `${limit} 卡时`}</span>;
  return (
    <Space.Compact>
      <InputNumber
        size="small"
        min={0}
        precision={0}
        placeholder="不限"
        value={value}
        onChange={(v) => setValue(v)}
        style={{ width: 96 }}
        aria-label="每月限额（卡时）"
        data-testid="team-limit-input"
      />
      <Button size="small" loading={save.isPending} disabled={value === limit} onClick={() => save.mutate()} data-testid="team-limit-save">
        保存
      </Button>
    </Space.Compact>
  );
}

/**
 * 团队算力 on 团队详情 (issue 21 item 5, ADR 0017): the team's remaining compute power, each member's usage this
 * month (card-hours per card type, ECharts) with their monthly limit — editable by owners and admins — and the
 * team's latest consume records, naming who ran each task.
 */
export function TeamCompute({ team }: { team: TeamDetail }) {
  const manages = team.myRole === 'owner' || team.myRole === 'admin';
  const balance = useQuery({ queryKey: queryKeys.team.compute(team.id), queryFn: () => teamCompPowers(team.id) });
  const usage = useQuery({ queryKey: queryKeys.team.usage(team.id), queryFn: () => teamUsage(team.id) });
  const records = useQuery({ queryKey: queryKeys.team.records(team.id), queryFn: () => teamConsumeRecords(team.id) });
  const names = new Map(team.members.map((m) => [m.userId, m.nickname || m.username]));

  return (
    <>
      <Card
        size="small"
        title="团队算力"
        data-testid="team-compute"
        extra={
          manages && (
            <Link to={`/pay?teamId=${encodeURIComponent(team.id)}`} data-testid="team-buy">
              为团队购买算力
            </Link>
          )
        }
      >
        {balance.isLoading ? (
          <Skeleton active paragraph={{ rows: 2 }} />
        ) : (
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Statistic title="剩余算力（卡时）" value={balance.data?.total ?? '0.00'} data-testid="team-balance" />
            {balance.data?.items.length ? (
              <List
                size="small"
                dataSource={balance.data.items}
                renderItem={(b) => (
                  <List.Item style={{ flexWrap: 'wrap', gap: 8 }}>
                    <span style={{ overflowWrap: 'anywhere' }}>
                      {b.subCenterName} · {b.cardTypeName}
                    </span>
                    <Typography.Text type="secondary">
                      剩余 {b.remaining} 卡时 · {formatTime(b.expireTime)} 到期
                    </Typography.Text>
                  </List.Item>
                )}
              />
            ) : (
              <Typography.Text type="secondary">团队暂无算力。{manages ? '团队所有者或管理员可为团队购买算力。' : '请联系团队所有者或管理员购买。'}</Typography.Text>
            )}
          </Space>
        )}
      </Card>
      <Card size="small" title={`成员本月用量${usage.data ? `（${usage.data.month}）` : ''}`}>
        {usage.isLoading || !usage.data ? (
          <Skeleton active paragraph={{ rows: 4 }} />
        ) : (
          <Space orientation="vertical" style={{ width: '100%' }} size={12}>
            <UsageChart usage={usage.data} />
            <Table
              size="small"
              rowKey="userId"
              pagination={false}
              scroll={{ x: 'max-content' }}
              dataSource={usage.data.members}
              columns={[
                { title: '成员', dataIndex: 'username', render: (_: unknown, m) => names.get(m.userId) ?? (m.username || '已退出成员') },
                { title: '本月已用（卡时）', dataIndex: 'total' },
                {
                  title: '每月限额',
                  key: 'limit',
                  render: (_: unknown, m) => <LimitCell key={`${m.userId}:${m.limitCardHours}`} teamId={team.id} userId={m.userId} limit={m.limitCardHours} editable={manages && names.has(m.userId)} />,
                },
              ]}
              data-testid="team-usage-table"
            />
            <Typography.Text type="secondary">限额按自然月计算，所有卡型合计；成员本月用量达到限额后，其团队付费的任务将被停止，新任务无法以团队付费提交。</Typography.Text>
          </Space>
        )}
      </Card>
      <Card size="small" title="团队消费记录（最近 10 条）">
        <List<ConsumeRecord>
          loading={records.isLoading}
          dataSource={(records.data?.list ?? []) as ConsumeRecord[]}
          locale={{ emptyText: <Empty description="暂无消费记录" image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
          renderItem={(r) => (
            <List.Item data-testid="team-record" style={{ flexWrap: 'wrap', gap: 8 }}>
              <List.Item.Meta
                style={{ flex: '1 1 240px', minWidth: 0 }}
                title={<span style={{ overflowWrap: 'anywhere' }}>{r.taskName}</span>}
                description={`${(r.userId && names.get(r.userId)) || '已退出成员'} · ${r.subCenterName} · ${r.cardTypeName} · ${r.day}`}
              />
              <span>{r.cardHours} 卡时</span>
            </List.Item>
          )}
        />
      </Card>
    </>
  );
}
