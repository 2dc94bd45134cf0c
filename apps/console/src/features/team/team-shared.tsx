import { DatasetApi, ModelApi, teamSpace, type Asset, type TeamDetail } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Card, Descriptions, Empty, List, Skeleton, Typography } from 'antd';
import { Link } from 'react-router';
import { call } from '../../app/request';
import { queryKeys } from '../../app/query-keys';

const KIND = { dataset: { label: '数据集', api: DatasetApi }, model: { label: '模型', api: ModelApi } } as const;

/** One kind's list of what is shared with the team (members only; the server answers 1205 to anyone else). */
function SharedList({ teamId, kind }: { teamId: string; kind: 'dataset' | 'model' }) {
  const { label, api } = KIND[kind];
  const q = useQuery({ queryKey: queryKeys.team.shared(teamId, kind), queryFn: () => call(api.teamShared, { query: { teamId } }) });
  if (q.isLoading) return <Skeleton active paragraph={{ rows: 1 }} />;
  return (
    <List<Asset>
      size="small"
      header={<Typography.Text strong>{label}</Typography.Text>}
      dataSource={q.data ?? []}
      locale={{ emptyText: <Empty description={`暂无共享给团队的${label}`} image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
      renderItem={(a) => (
        <List.Item data-testid={`team-shared-${kind}`}>
          <List.Item.Meta title={<Link to={`/${kind}/detail/${a.id}`}>{a.name}</Link>} description={`所有者 ${a.ownerName}${a.description ? ` · ${a.description}` : ''}`} />
        </List.Item>
      )}
    />
  );
}

/**
 * 共享与团队空间 on 团队详情 (issue 21 item 4, ADR 0018): the datasets and models shared with the team (every member
 * reads and mounts them), and the team's folder on each center, which every member's jobs and shells read and
 * write.
 */
export function TeamShared({ team }: { team: TeamDetail }) {
  return (
    <>
      <Card size="small" title="共享给团队的数据集与模型" data-testid="team-shared">
        <SharedList teamId={team.id} kind="dataset" />
        <SharedList teamId={team.id} kind="model" />
        <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
          在数据集或模型详情页的「共享」中选择团队即可共享；成员可在训练任务中挂载。
        </Typography.Paragraph>
      </Card>
      <Card size="small" title="团队空间" data-testid="team-areas">
        <Typography.Paragraph type="secondary">
          每个分中心上都有团队的共享目录，所有成员的作业和终端都可以读写，也可以在存储管理中浏览、上传和下载；非成员无法访问，成员退出团队后立即失去访问权限。
        </Typography.Paragraph>
        <Descriptions size="small" column={1} bordered>
          {team.areas.map((a) => (
            <Descriptions.Item key={a.subCenterId} label={a.subCenterName}>
              {/* A long path breaks anywhere rather than widening the page on a phone. */}
              <Typography.Text code copyable style={{ wordBreak: 'break-all' }} data-testid="team-area-path">
                {a.path}
              </Typography.Text>{' '}
              {/* 存储管理 on that center, switched to this team's folder (ADR 0018 §7). */}
              <Link to={`/storage?${new URLSearchParams({ center: a.subCenterId, space: teamSpace(team.id) })}`} data-testid="team-area-open">
                在存储管理中打开
              </Link>
            </Descriptions.Item>
          ))}
        </Descriptions>
      </Card>
    </>
  );
}
