import type { ResourceCenter } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Col, Empty, List, Progress, Row, Space, Spin, Statistic, Tag, Typography } from 'antd';
import { Link, useNavigate } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { PageContainer } from '../../shared/ui/page-container';
import { formatTime } from '../../shared/time';
import { fetchOverview } from './api';
import { percent, RESOURCE_REFRESH_MS, STATE_LABEL, taskDetailPath } from './resource-view';
import { vendorLabel } from '../../shared/vendor';

/**
 * 资源概览 (/resource): per sub-center, its state and, per card type, the cards and nodes in use and free and
 * the jobs waiting, as the scheduler last reported them; and the caller's running tasks there. Live: the
 * stored samples are re-read on each new sample and task state change (socket), and every RESOURCE_REFRESH_MS.
 */
export function ResourcePage() {
  const navigate = useNavigate();
  const overview = useQuery({ queryKey: queryKeys.resource.overview, queryFn: fetchOverview, refetchInterval: RESOURCE_REFRESH_MS });
  const centers = overview.data?.centers ?? [];
  // Accelerator cards only: a CPU-only type's "cards" are cores.
  const cards = centers.flatMap((c) => c.cardTypes.filter((t) => t.accelerator));
  const total = cards.reduce((m, t) => m + t.total, 0);
  const allocated = cards.reduce((m, t) => m + t.allocated, 0);
  const mine = centers.reduce((n, c) => n + c.myRunning.length, 0);

  return (
    <PageContainer
      title="资源概览"
      description="各算力分中心的卡型、空闲算力与排队情况（由调度系统定时采样，页面自动刷新）。"
      extra={
        <Button onClick={() => navigate('/resource/dashboard')} data-testid="res-to-dashboard">
          资源大屏
        </Button>
      }
    >
      {overview.isPending ? (
        <Spin />
      ) : (
        <Space orientation="vertical" size={16} style={{ width: '100%' }}>
          <Row gutter={[16, 16]}>
            <Col xs={12} md={6}>
              <Card size="small">
                <Statistic title="加速卡总数" value={total} suffix="张" />
              </Card>
            </Col>
            <Col xs={12} md={6}>
              <Card size="small">
                <Statistic title="已分配加速卡" value={allocated} suffix="张" />
              </Card>
            </Col>
            <Col xs={12} md={6}>
              <Card size="small">
                <Statistic title="空闲加速卡" value={total - allocated} suffix="张" valueStyle={{ color: '#389e0d' }} data-testid="res-idle-total" />
              </Card>
            </Col>
            <Col xs={12} md={6}>
              <Card size="small">
                <Statistic title="我运行中的任务" value={mine} suffix="个" />
              </Card>
            </Col>
          </Row>
          {centers.map((c) => (
            <CenterCard key={c.subCenterId} center={c} />
          ))}
        </Space>
      )}
    </PageContainer>
  );
}

function CenterCard({ center: c }: { center: ResourceCenter }) {
  const state = STATE_LABEL[c.state];
  return (
    <Card
      data-testid="res-center"
      data-center={c.subCenterId}
      title={
        <Space size={8} wrap>
          <Typography.Text strong>{c.subCenterName}</Typography.Text>
          <Typography.Text type="secondary">{c.region}</Typography.Text>
          <Badge status={state.status} text={state.text} data-testid="res-state" />
        </Space>
      }
      extra={<Typography.Text type="secondary">{c.sampledAt ? `更新于 ${formatTime(c.sampledAt).slice(11)}` : '等待首次采样'}</Typography.Text>}
    >
      <Space orientation="vertical" size={16} style={{ width: '100%' }}>
        {c.cardTypes.map((t) => (
          <div key={t.cardTypeId} data-testid="res-cardtype" data-cardtype={t.cardTypeId} data-total={t.total} data-allocated={t.allocated}>
            <Space size={8} wrap style={{ marginBottom: 4 }}>
              <Typography.Text strong>{t.cardTypeName}</Typography.Text>
              <Tag style={{ marginInlineEnd: 0 }}>{vendorLabel(t.vendor)}</Tag>
              {t.queued > 0 && <Tag color="orange">排队 {t.queued} 个作业</Tag>}
            </Space>
            <Progress percent={percent(t.allocated, t.total)} format={() => `${t.allocated}/${t.total}`} status={t.idle ? 'normal' : 'exception'} />
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              空闲 {t.idle} {t.accelerator ? '张' : '核'} · 空闲节点 {t.nodesIdle}/{t.nodesTotal}
            </Typography.Text>
          </div>
        ))}
        <div>
          <Typography.Text type="secondary">我在此运行的任务：</Typography.Text>
          {c.myRunning.length ? (
            <List
              size="small"
              dataSource={c.myRunning}
              renderItem={(t) => (
                <List.Item data-testid="res-my-task">
                  <Space size={8} wrap>
                    <Link to={taskDetailPath(t)}>{t.name}</Link>
                    <Typography.Text type="secondary">
                      {t.cardTypeName} × {t.cards} · 开始于 {formatTime(t.startTime)}
                    </Typography.Text>
                  </Space>
                </List.Item>
              )}
            />
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无运行中的任务" style={{ margin: '8px 0' }} />
          )}
        </div>
      </Space>
    </Card>
  );
}
