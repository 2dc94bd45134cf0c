import { SUB_CENTER_STATUS_LABELS, type AdminCenter, type CenterPackage, type SubCenterStatus } from '@suanli/contracts';
import { EditOutlined, ToolOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Empty, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatTime } from '../../shared/time';
import { PageContainer } from '../../shared/ui/page-container';
import { PageLoading } from '../../shared/ui/page-loading';
import { listCenters } from './api';
import { CenterPackagesModal } from './center-packages-modal';
import { CenterStatusModal } from './center-status-modal';
import { OperatorOnly } from './operator-only';

const TITLE = '分中心';
const STATUS_COLORS: Record<SubCenterStatus, string> = { online: 'green', maintenance: 'orange', offline: 'red' };

export function CenterStatusTag({ status }: { status: SubCenterStatus }) {
  return (
    <Tag color={STATUS_COLORS[status]} style={{ marginInlineEnd: 0 }} data-testid="center-status" data-status={status}>
      {SUB_CENTER_STATUS_LABELS[status]}
    </Tag>
  );
}

/** A center card's title: its name and its status (分中心, 平台概览). */
export function CenterTitle({ name, status }: { name: string; status: SubCenterStatus }) {
  return (
    <Space size={8} wrap>
      <span>{name}</span>
      <CenterStatusTag status={status} />
    </Space>
  );
}

function Packages({ center }: { center: AdminCenter }) {
  const screens = useBreakpoint();
  const cardType = (id: string) => center.cardTypes.find((t) => t.id === id)?.name ?? id;
  if (!center.packages.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无在售算力卡" />;
  if (!screens.sm)
    // A phone: one line per package, the card type and the terms beneath.
    return (
      <div style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
        {center.packages.map((p) => (
          <div key={p.id} data-testid="center-package" style={{ overflowWrap: 'anywhere' }}>
            <div>
              {p.name} <Typography.Text strong>¥{p.price}</Typography.Text>
            </div>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {cardType(p.cardTypeId)} · {p.cardHours} 卡时 · {p.validDays} 天
            </Typography.Text>
          </div>
        ))}
      </div>
    );
  const columns: TableColumnsType<CenterPackage> = [
    { title: '卡型', key: 'cardType', width: 170, render: (_v, p) => cardType(p.cardTypeId) },
    { title: '名称', dataIndex: 'name', key: 'name' },
    { title: '卡时', dataIndex: 'cardHours', key: 'cardHours', width: 90 },
    { title: '价格（元）', dataIndex: 'price', key: 'price', width: 120 },
    { title: '有效期（天）', dataIndex: 'validDays', key: 'validDays', width: 110 },
  ];
  return <Table<CenterPackage> size="small" rowKey="id" columns={columns} dataSource={center.packages} pagination={false} onRow={() => ({ 'data-testid': 'center-package' }) as object} />;
}

function CenterCard({ center, onStatus, onPackages }: { center: AdminCenter; onStatus: () => void; onPackages: () => void }) {
  return (
    <Card
      data-testid="center-card"
      data-id={center.id}
      title={<CenterTitle name={center.name} status={center.status} />}
    >
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <Typography.Text type="secondary">
          {center.region}
          {center.updateTime ? ` · 最近修改于 ${formatTime(center.updateTime)}` : ''}
        </Typography.Text>
        {center.status !== 'online' ? <Alert type={center.status === 'offline' ? 'error' : 'warning'} showIcon title={`公告：${center.notice}`} data-testid="center-notice" /> : null}
        <Space wrap>
          <Button icon={<ToolOutlined />} onClick={onStatus} data-testid="center-set-status">
            设置状态
          </Button>
          <Button icon={<EditOutlined />} onClick={onPackages} data-testid="center-edit-packages">
            编辑算力卡
          </Button>
        </Space>
        <Packages center={center} />
      </Space>
    </Card>
  );
}

function Centers() {
  const centers = useQuery({ queryKey: queryKeys.admin.centers, queryFn: listCenters });
  const [statusOf, setStatusOf] = useState<AdminCenter | null>(null);
  const [packagesOf, setPackagesOf] = useState<AdminCenter | null>(null);
  if (!centers.data) return centers.isError ? <Alert type="error" showIcon title="分中心加载失败，请刷新重试" /> : <PageLoading />;
  return (
    <>
      <Space orientation="vertical" size={16} style={{ width: '100%' }}>
        {centers.data.map((c) => (
          <CenterCard key={c.id} center={c} onStatus={() => setStatusOf(c)} onPackages={() => setPackagesOf(c)} />
        ))}
      </Space>
      <CenterStatusModal center={statusOf} onClose={() => setStatusOf(null)} />
      <CenterPackagesModal center={packagesOf} onClose={() => setPackagesOf(null)} />
    </>
  );
}

/**
 * 运营管理 › 分中心 (/admin/centers): each center's status (正常 / 维护 / 下线) with its notice, and the
 * packages it sells with their prices. Every change is recorded in 审计日志.
 */
export function AdminCentersPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer
        title={TITLE}
        description="设置分中心状态与公告，编辑在售算力卡与价格。维护或下线期间，用户无法向该分中心提交新任务或购买算力，运行中的任务不受影响。每次修改都记入审计日志。"
      >
        <Centers />
      </PageContainer>
    </OperatorOnly>
  );
}
