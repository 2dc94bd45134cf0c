import { ArrowLeftOutlined, CloudUploadOutlined, CustomerServiceOutlined, DeleteOutlined, KeyOutlined } from '@ant-design/icons';
import { ErrorCode, formatFileSize, type ImagePublication, type ImageRepository, type ImageTag } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Empty, Popconfirm, Result, Space, Spin, Table, Tabs, Tag, Tooltip, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { RequestError } from '../../app/request';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { formatTime } from '../../shared/time';
import { vendorLabel } from '../../shared/vendor';
import { ImageImportCard } from './image-import-card';
import { deleteTag, imageDetail, listMyImages, myPublications, publicImages, registryInfo, requestPublication, resetCredential } from './api';

const detailPath = (name: string) => `/image/detail/${encodeURIComponent(name)}`;
const Code = ({ children, testId }: { children: string; testId?: string }) => (
  <Typography.Paragraph copyable={{ text: children }} code style={{ marginBottom: 8, overflowWrap: 'anywhere' }} data-testid={testId}>
    {children}
  </Typography.Paragraph>
);

/**
 * The registry is optional (the embedded default has none): `offered` is false when the platform has no
 * registry (2401), and the pages say so in the user's terms instead of failing. Other failures (the
 * registry unreachable for a moment) are not a missing feature: those say so and offer a retry.
 */
function useRegistry() {
  const registry = useQuery({ queryKey: queryKeys.image.registry, queryFn: registryInfo, retry: false });
  const offered = !(registry.error instanceof RequestError && registry.error.code === ErrorCode.REGISTRY_NOT_CONFIGURED);
  return { registry, offered };
}

const NOT_OFFERED = '本平台暂未提供私有镜像';
const NOT_OFFERED_HINT = '目前请使用平台提供的公共镜像创建训练任务；如需使用自己的镜像，可提交工单联系我们。';
const UNREACHABLE = '暂时无法连接平台镜像仓库，请稍后重试。';

/** /image: 公共镜像 (the catalogue) and 我的镜像 (the caller's namespace in the registry). */
export function ImageListPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'mine' ? 'mine' : 'public';
  const navigate = useNavigate();
  const catalogue = useQuery({ queryKey: queryKeys.imagesPublic, queryFn: publicImages, enabled: tab === 'public' });
  const { registry, offered } = useRegistry();
  const mine = useQuery({ queryKey: queryKeys.image.mine, queryFn: listMyImages, enabled: tab === 'mine' && registry.isSuccess });
  const push = (
    <Button type="primary" icon={<CloudUploadOutlined />} disabled={!offered} onClick={() => navigate('/image/form')} data-testid="image-push-open">
      推送私有镜像
    </Button>
  );
  return (
    <PageContainer
      title="镜像"
      description={offered ? '训练与开发任务使用的容器镜像：平台公共镜像，以及推送到平台镜像仓库的私有镜像。' : '训练与开发任务使用的容器镜像：平台提供的公共镜像。'}
      extra={offered ? push : <Tooltip title={NOT_OFFERED}>{push}</Tooltip>}
    >
      <Card>
        <Tabs
          activeKey={tab}
          onChange={(k) => setParams(k === 'mine' ? { tab: 'mine' } : {}, { replace: true })}
          items={[
            {
              key: 'public',
              label: '公共镜像',
              children: (
                <Table
                  rowKey="id"
                  size="small"
                  loading={catalogue.isLoading}
                  dataSource={catalogue.data ?? []}
                  pagination={false}
                  scroll={{ x: 720 }}
                  data-testid="image-public"
                  columns={[
                    { title: '名称', dataIndex: 'name', render: (n: string, i) => (<Space orientation="vertical" size={0}><b>{n}</b><Typography.Text type="secondary">{i.description}</Typography.Text></Space>) },
                    { title: '框架', dataIndex: 'framework', width: 110 },
                    { title: '加速库', dataIndex: 'accelerator', width: 120, render: (s: string) => s || 'CPU' },
                    { title: '适用卡型厂商', dataIndex: 'cardVendors', width: 200, render: (v: string[]) => v.map((x) => <Tag key={x}>{vendorLabel(x)}</Tag>) },
                  ]}
                />
              ),
            },
            {
              key: 'mine',
              label: '我的镜像',
              children: !offered ? (
                <Alert type="info" showIcon title={NOT_OFFERED} description={NOT_OFFERED_HINT} data-testid="image-no-registry" />
              ) : registry.isError ? (
                <Alert
                  type="warning"
                  showIcon
                  title={UNREACHABLE}
                  action={
                    <Button size="small" onClick={() => void registry.refetch()} data-testid="image-registry-retry">
                      重试
                    </Button>
                  }
                  data-testid="image-registry-error"
                />
              ) : mine.isLoading || registry.isLoading ? (
                <Spin style={{ display: 'block', margin: 48 }} />
              ) : (mine.data ?? []).length === 0 ? (
                <Empty description="还没有私有镜像：点击“推送私有镜像”查看推送方法" data-testid="image-mine-empty" />
              ) : (
                <Table
                  rowKey="name"
                  size="small"
                  dataSource={mine.data}
                  pagination={false}
                  scroll={{ x: 560 }}
                  data-testid="image-mine"
                  columns={[
                    { title: '仓库', dataIndex: 'name', render: (n: string) => <a onClick={() => navigate(detailPath(n))} data-testid="image-repo">{n}</a> },
                    { title: '标签', dataIndex: 'tags', render: (tags: ImageRepository['tags']) => tags.map((t) => <Tag key={t.tag}>{t.tag}</Tag>) },
                    { title: '大小', width: 120, render: (_: unknown, r: ImageRepository) => formatFileSize(Math.max(...r.tags.map((t) => t.sizeBytes))) },
                  ]}
                />
              ),
            },
          ]}
        />
      </Card>
    </PageContainer>
  );
}

/** /image/form: how to push into the caller's namespace, and the registry password (shown once on reset). */
export function PrivateImageFormPage() {
  const { registry, offered } = useRegistry();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [password, setPassword] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: resetCredential,
    onSuccess: (c) => {
      setPassword(c.password);
      void client.invalidateQueries({ queryKey: queryKeys.image.registry });
    },
  });
  if (registry.isLoading) return <Spin style={{ display: 'block', margin: 48 }} />;
  if (!registry.data) {
    const back = (
      <Button icon={<ArrowLeftOutlined />} onClick={() => navigate('/image')} key="back" data-testid="image-form-back">
        返回镜像列表
      </Button>
    );
    return (
      <PageContainer title="推送私有镜像">
        <Card>
          {offered ? (
            <Result status="warning" title={UNREACHABLE} extra={[back, <Button key="retry" type="primary" onClick={() => void registry.refetch()} data-testid="image-registry-retry">
                  重试
                </Button>]} data-testid="image-registry-error" />
          ) : (
            <Result
              status="info"
              title={NOT_OFFERED}
              subTitle={NOT_OFFERED_HINT}
              extra={[
                back,
                <Button key="workorder" type="primary" icon={<CustomerServiceOutlined />} onClick={() => navigate('/workorder')} data-testid="image-form-workorder">
                  提交工单
                </Button>,
              ]}
              data-testid="image-no-registry"
            />
          )}
        </Card>
      </PageContainer>
    );
  }
  const { address, namespace, username, hasCredential } = registry.data;
  return (
    <PageContainer title="推送私有镜像" description={`私有镜像位于命名空间 ${namespace}/ 下，只有您可以拉取和推送。`}>
      <Card title="1. 镜像仓库密码">
        <Typography.Paragraph type="secondary">用于 docker login；与登录密码不同，仅在生成时显示一次，平台只保存其摘要。</Typography.Paragraph>
        {password ? (
          <Alert type="success" showIcon title="新的镜像仓库密码（请立即保存）" description={<Code testId="image-password">{password}</Code>} style={{ marginBottom: 12 }} />
        ) : null}
        <Popconfirm
          title={hasCredential ? '重置后旧密码立即失效，确定重置？' : '生成镜像仓库密码？'}
          okText="确定"
          cancelText="取消"
          onConfirm={() => reset.mutate()}
        >
          <Button icon={<KeyOutlined />} loading={reset.isPending} data-testid="image-reset-credential">
            {hasCredential ? '重置密码' : '生成密码'}
          </Button>
        </Popconfirm>
      </Card>
      <Card title="2. 登录并推送">
        <Code testId="image-login">{`docker login ${address} -u ${username}`}</Code>
        <Code>{`docker tag my-image:latest ${address}/${namespace}/my-image:latest`}</Code>
        <Code testId="image-push">{`docker push ${address}/${namespace}/my-image:latest`}</Code>
        <Typography.Paragraph type="secondary">不使用 Docker 时也可用 skopeo：</Typography.Paragraph>
        <Code>{`skopeo copy docker-archive:my-image.tar docker://${address}/${namespace}/my-image:latest --dest-creds ${username}:<镜像仓库密码>`}</Code>
      </Card>
      <ImageImportCard namespace={namespace} />
    </PageContainer>
  );
}

/** /image/detail/:id (id = the repository name): tags with digest, size, layers, created, and delete. */
export function PrivateImageDetailPage() {
  const name = decodeURIComponent(useParams().id ?? '');
  const navigate = useNavigate();
  const client = useQueryClient();
  const detail = useQuery({ queryKey: queryKeys.image.detail(name), queryFn: () => imageDetail(name), retry: false });
  const screens = useBreakpoint();
  const pubs = useQuery({ queryKey: queryKeys.image.publications, queryFn: myPublications });
  // The list is newest first: a tag's first entry is its latest request.
  const latest = (tag: string) => pubs.data?.find((p) => p.source === `${name}:${tag}`);
  const ask = useMutation({
    mutationFn: (tag: string) => requestPublication(name, tag),
    onSuccess: () => {
      toast.success('已提交公共镜像申请，等待运营审核');
      void client.invalidateQueries({ queryKey: queryKeys.image.publications });
    },
  });
  const remove = useMutation({
    mutationFn: (tag: string) => deleteTag(name, tag),
    onSuccess: () => {
      toast.success('标签已删除');
      void client.invalidateQueries({ queryKey: queryKeys.image.root });
    },
  });
  const actions = (t: ImageTag) => (
    <Space size={0} wrap>
      {latest(t.tag)?.state === 'pending' || latest(t.tag)?.state === 'approved' ? null : (
        <Popconfirm
          title={`申请将 ${t.tag} 设为公共镜像？`}
          description="运营审核通过后，所有用户创建任务时都可选用该镜像（当前摘要的副本）。"
          okText="申请"
          cancelText="取消"
          onConfirm={() => ask.mutate(t.tag)}
        >
          <Button type="link" size="small" data-testid="image-publish">
            申请公开
          </Button>
        </Popconfirm>
      )}
      <Popconfirm title={`删除标签 ${t.tag}？`} description="指向同一摘要的其他标签会一并删除。" okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => remove.mutate(t.tag)}>
        <Button type="link" size="small" danger icon={<DeleteOutlined />}>
          删除
        </Button>
      </Popconfirm>
    </Space>
  );
  const digest = (s: string) => (
    <Typography.Text copyable={{ text: s }} style={{ fontFamily: 'monospace', fontSize: 12 }}>
      {s.slice(0, 19)}…
    </Typography.Text>
  );
  const columns: TableColumnsType<ImageTag> = screens.md
    ? [
        { title: '标签', dataIndex: 'tag', render: (s: string) => <b>{s}</b> },
        { title: '摘要', dataIndex: 'digest', render: digest },
        { title: '大小', dataIndex: 'sizeBytes', width: 110, render: (n: number) => formatFileSize(n) },
        { title: '层数', dataIndex: 'layers', width: 70 },
        { title: '创建时间', dataIndex: 'created', width: 170, render: (t: number | null) => (t ? formatTime(t) : '—') },
        { title: '公共镜像', key: 'publication', width: 200, render: (_: unknown, t) => <PublicationState publication={latest(t.tag)} /> },
        { title: '操作', key: 'action', width: 170, render: (_: unknown, t) => actions(t) },
      ]
    : [
        // A phone: the tag with its digest and size; its public-image state and the actions beside it.
        {
          title: '标签',
          key: 'tag',
          render: (_: unknown, t) => (
            <div style={{ minWidth: 0 }}>
              <b>{t.tag}</b>
              <div>{digest(t.digest)}</div>
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)' }}>
                {formatFileSize(t.sizeBytes)} · {t.layers} 层
              </div>
            </div>
          ),
        },
        {
          title: '公共镜像',
          key: 'publication',
          width: 150,
          render: (_: unknown, t) => (
            <Space orientation="vertical" size={4}>
              <PublicationState publication={latest(t.tag)} />
              {actions(t)}
            </Space>
          ),
        },
      ];
  if (detail.isLoading) return <Spin style={{ display: 'block', margin: 48 }} />;
  if (!detail.data) return <Result status="404" title="镜像不存在或已删除" extra={<Button onClick={() => navigate('/image?tab=mine')}>返回我的镜像</Button>} />;
  return (
    <PageContainer title={<span data-testid="image-title">{name}</span>} description="私有镜像">
      <Card>
        <Table
          rowKey="tag"
          size="small"
          dataSource={detail.data.tags}
          pagination={false}
          scroll={screens.md ? { x: 1100 } : undefined}
          data-testid="image-tags"
          expandable={{ expandedRowRender: (t) => <Code>{t.pullCommand}</Code> }}
          columns={columns}
        />
      </Card>
      <Card>
        <Descriptions size="small" column={1}>
          <Descriptions.Item label="拉取">
            <Code>{detail.data.tags[0]?.pullCommand ?? ''}</Code>
          </Descriptions.Item>
        </Descriptions>
      </Card>
    </PageContainer>
  );
}

/** A tag's latest request to be a public image: 审核中, 已公开 (under which name), or 未通过 with the reason. */
function PublicationState({ publication: p }: { publication: ImagePublication | undefined }) {
  if (!p) return <Typography.Text type="secondary">—</Typography.Text>;
  if (p.state === 'pending') return <Tag color="gold">公开审核中</Tag>;
  if (p.state === 'approved')
    return (
      <Tooltip title={`任务中选用：${p.target}`}>
        <Tag color="green" data-testid="image-publication-approved">
          已公开
        </Tag>
      </Tooltip>
    );
  return (
    <Space orientation="vertical" size={2} data-testid="image-publication-rejected">
      <Tag color="red">公开申请未通过</Tag>
      <Typography.Text type="secondary" style={{ fontSize: 12, overflowWrap: 'anywhere' }}>
        原因：{p.reason}
      </Typography.Text>
    </Space>
  );
}
