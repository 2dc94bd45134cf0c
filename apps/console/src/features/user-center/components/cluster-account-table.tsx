import type { ClusterAccount } from '@suanli/contracts';
import { Card, Table, Tag, Typography, type TableColumnsType } from 'antd';

interface ClusterAccountTableProps {
  accounts: ClusterAccount[];
  loading: boolean;
}

const COLUMNS: TableColumnsType<ClusterAccount> = [
  { title: '算力分中心', dataIndex: 'subCenterName', key: 'subCenterName' },
  {
    title: '集群账号',
    dataIndex: 'account',
    key: 'account',
    render: (v: string) => <Typography.Text copyable>{v}</Typography.Text>,
  },
  { title: 'UID', dataIndex: 'uid', key: 'uid', width: 100 },
  {
    title: '家目录',
    dataIndex: 'homeDir',
    key: 'homeDir',
    ellipsis: true,
    render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
  },
  {
    title: '状态',
    dataIndex: 'status',
    key: 'status',
    width: 100,
    render: (v: ClusterAccount['status']) => (v === 'active' ? <Tag color="success">正常</Tag> : <Tag color="default">已停用</Tag>),
  },
];

/** The user's account on each sub-center's cluster: what jobs run as and where the home directory is. */
export function ClusterAccountTable({ accounts, loading }: ClusterAccountTableProps) {
  return (
    <Card title="集群账号" extra={<Typography.Text type="secondary">首次使用某个分中心时自动开通</Typography.Text>}>
      <Table<ClusterAccount>
        rowKey="subCenterId"
        size="middle"
        columns={COLUMNS}
        dataSource={accounts}
        loading={loading}
        pagination={false}
        scroll={{ x: 640 }}
        locale={{ emptyText: '暂未开通集群账号' }}
        data-testid="uc-cluster-table"
      />
    </Card>
  );
}
