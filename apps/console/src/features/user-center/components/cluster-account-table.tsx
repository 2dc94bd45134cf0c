import type { ClusterAccount } from '@suanli/contracts';
import { Card, Flex, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useBreakpoint, type Screens } from '../../../shared/hooks/use-breakpoint';

interface ClusterAccountTableProps {
  accounts: ClusterAccount[];
  loading: boolean;
}

const statusTag = (v: ClusterAccount['status']) => (v === 'active' ? <Tag color="success">正常</Tag> : <Tag color="default">已停用</Tag>);

/**
 * Every column from md (768 px) up. Narrower, UID and 状态 go under the center's name and the home
 * directory under the account, so a phone shows the whole row without scrolling sideways.
 */
function columns(screens: Screens): TableColumnsType<ClusterAccount> {
  return [
    {
      title: '算力分中心',
      dataIndex: 'subCenterName',
      key: 'subCenterName',
      render: (v: string, row) =>
        screens.md ? (
          v
        ) : (
          <Flex vertical gap={4} align="flex-start">
            <span>{v}</span>
            <span>
              {statusTag(row.status)}
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                UID {row.uid}
              </Typography.Text>
            </span>
          </Flex>
        ),
    },
    {
      title: '集群账号',
      dataIndex: 'account',
      key: 'account',
      ellipsis: { showTitle: false },
      render: (v: string, row) => (
        <Flex vertical gap={4} style={{ minWidth: 0 }}>
          <Typography.Text copyable ellipsis title={v} data-testid="uc-cluster-account">
            {v}
          </Typography.Text>
          {!screens.md && (
            <Typography.Text code ellipsis title={row.homeDir} style={{ fontSize: 12 }}>
              {row.homeDir}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    { title: 'UID', dataIndex: 'uid', key: 'uid', width: 100, responsive: ['md'] },
    {
      title: '家目录',
      dataIndex: 'homeDir',
      key: 'homeDir',
      responsive: ['md'],
      ellipsis: { showTitle: false },
      render: (v: string) => (
        <Typography.Text code ellipsis title={v}>
          {v}
        </Typography.Text>
      ),
    },
    { title: '状态', dataIndex: 'status', key: 'status', width: 100, responsive: ['md'], render: statusTag },
  ];
}

/** The user's account on each sub-center's cluster: what jobs run as and where the home directory is. */
export function ClusterAccountTable({ accounts, loading }: ClusterAccountTableProps) {
  const screens = useBreakpoint();
  const hint = <Typography.Text type="secondary">首次使用某个分中心时自动开通</Typography.Text>;
  return (
    <Card title="集群账号" extra={screens.sm ? hint : undefined} styles={{ body: { padding: screens.sm ? 24 : 12 } }}>
      {!screens.sm && <div style={{ marginBottom: 8 }}>{hint}</div>}
      <Table<ClusterAccount>
        rowKey="subCenterId"
        size="middle"
        columns={columns(screens)}
        dataSource={accounts}
        loading={loading}
        pagination={false}
        tableLayout="fixed"
        locale={{ emptyText: '暂未开通集群账号' }}
        data-testid="uc-cluster-table"
      />
    </Card>
  );
}
