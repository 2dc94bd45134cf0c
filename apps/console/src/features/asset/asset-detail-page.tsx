import { CheckOutlined, DeleteOutlined, EditOutlined, ExperimentOutlined, PlusOutlined, SendOutlined, ShareAltOutlined } from '@ant-design/icons';
import { TeamApi, type AssetDetail, type AssetKind, type AssetUpdate, type AssetVersion, type AssetVersionCreate } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Empty, Form, Modal, Popconfirm, Result, Select, Space, Spin, Table, Tabs, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { toast } from '../../app/feedback';
import { call } from '../../app/request';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { formatTime } from '../../shared/time';
import { assetCalls, KIND_LABEL } from './api';
import { AssetFormModal, SourceFields } from './asset-form';
import { VISIBILITY_TAG } from './asset-index-page';
import { FilesView, ReadmeView, VersionCards, VersionTable } from './asset-versions';
import styles from './asset.module.css';

/**
 * /dataset/detail/:id and /model/detail/:id; also the public hall's detail (`hall`), where a non-owner can
 * 添加到我的.
 */
export function AssetDetailPage({ kind, hall = false }: { kind: AssetKind; hall?: boolean }) {
  const { id = '' } = useParams();
  const calls = useMemo(() => assetCalls(kind), [kind]);
  const label = KIND_LABEL[kind];
  const client = useQueryClient();
  const navigate = useNavigate();
  const detail = useQuery({ queryKey: queryKeys.asset.detail(kind, id), queryFn: () => calls.detail(id) });
  const [tab, setTab] = useState('versions');
  const [picked, setPicked] = useState<string | undefined>();
  const [dialog, setDialog] = useState<'edit' | 'version' | 'share' | null>(null);
  const [versionForm] = Form.useForm<AssetVersionCreate>();
  const [shareNames, setShareNames] = useState<string[]>([]);
  const [shareTeamId, setShareTeamId] = useState<string | undefined>();
  // The owner's teams, offered in the share dialog (only while it is open).
  const teams = useQuery({ queryKey: queryKeys.team.list, queryFn: () => call(TeamApi.list), enabled: dialog === 'share' });
  const screens = useBreakpoint();

  const refresh = (d?: AssetDetail) => {
    if (d) client.setQueryData(queryKeys.asset.detail(kind, id), d);
    void client.invalidateQueries({ queryKey: queryKeys.asset.root(kind) });
    void client.invalidateQueries({ queryKey: ['team', 'shared'] });
  };
  const update = useMutation({ mutationFn: (b: AssetUpdate) => calls.update(id, b), onSuccess: (d) => (refresh(d), setDialog(null), toast.success('已保存')) });
  const addVersion = useMutation({
    mutationFn: (b: AssetVersionCreate) => calls.addVersion(id, b),
    onSuccess: (v) => (refresh(), setDialog(null), setTab('versions'), toast.success(`正在生成 v${v.version}，完成后可用`)),
  });
  const removeVersion = useMutation({ mutationFn: (vid: string) => calls.removeVersion(id, vid), onSuccess: () => (refresh(), toast.success('版本已删除')) });
  const share = useMutation({ mutationFn: (names: string[]) => calls.share(id, names), onSuccess: (d) => (refresh(d), setShareNames([]), toast.success('已共享')) });
  const unshare = useMutation({ mutationFn: (userId: string) => calls.unshare(id, userId), onSuccess: (d) => (refresh(d), toast.success('已取消共享')) });
  const shareTeam = useMutation({ mutationFn: (teamId: string) => calls.shareTeam(id, teamId), onSuccess: (d) => (refresh(d), setShareTeamId(undefined), toast.success('已共享给团队')) });
  const unshareTeam = useMutation({ mutationFn: (teamId: string) => calls.unshareTeam(id, teamId), onSuccess: (d) => (refresh(d), toast.success('已取消与团队的共享')) });
  const addToMine = useMutation({
    mutationFn: () => calls.addToMine(id),
    onSuccess: (d) => (refresh(d), toast.success(`已添加到“共享${label}”`)),
  });
  // 用于训练 (any ready version, from the owner's page, a shared one's or the hall's): the training form opens
  // with `?<kind>=<asset>:<version>`, which its 数据集 / 模型 field preselects. The field offers the caller's
  // own and shared assets only, so a public one of someone else is first added to the caller's list.
  const trainWith = useMutation({
    mutationFn: async (versionId: string) => {
      const d = detail.data;
      if (d && !d.mine && d.visibility === 'public') refresh(await calls.addToMine(id));
      return versionId;
    },
    onSuccess: (versionId) => navigate(`/training/task/train?${kind}=${encodeURIComponent(`${id}:${versionId}`)}`),
  });
  const publish = useMutation({ mutationFn: () => calls.publish(id), onSuccess: (d) => (refresh(d), toast.success('已提交公开申请，等待运营审核')) });
  const remove = useMutation({
    mutationFn: () => calls.remove(id),
    onSuccess: () => {
      toast.success(`${label}已删除`);
      void client.invalidateQueries({ queryKey: queryKeys.asset.root(kind) });
      navigate(`/${kind}`);
    },
  });

  if (detail.isLoading) return <Spin className={styles.loading} />;
  const a = detail.data;
  if (!a) return <Result status="404" title={`${label}不存在或无权查看`} extra={<Button onClick={() => navigate(hall ? `/public-data/${kind}` : `/${kind}`)}>返回{hall ? '公共资源大厅' : `${label}列表`}</Button>} />;

  const versionActions = (v: AssetVersion) => (
    <Space size={0}>
      {v.state === 'ready' ? (
        <Button type="link" size="small" onClick={() => (setPicked(v.id), setTab('files'))}>
          浏览文件
        </Button>
      ) : null}
      {v.state === 'ready' ? (
        <Button type="link" size="small" disabled={trainWith.isPending} onClick={() => trainWith.mutate(v.id)} data-testid="asset-version-train">
          用于训练
        </Button>
      ) : null}
      {a.mine && v.state !== 'creating' ? (
        <Popconfirm title={`删除 v${v.version}？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => removeVersion.mutate(v.id)}>
          <Button type="link" size="small" danger>
            删除
          </Button>
        </Popconfirm>
      ) : null}
    </Space>
  );
  // Versions come newest first: the header's 用于训练 takes the newest ready one.
  const readyVersions = a.versions.filter((v) => v.state === 'ready');
  const version = readyVersions.find((v) => v.id === picked) ?? readyVersions[0];
  const trainButton = readyVersions.length ? (
    <Button icon={<ExperimentOutlined />} loading={trainWith.isPending} onClick={() => trainWith.mutate(readyVersions[0].id)} data-testid="asset-use-for-training">
      用于训练
    </Button>
  ) : null;
  const vis = VISIBILITY_TAG[a.visibility];
  const picker = readyVersions.length ? (
    <div className={styles.versionBar}>
      <span>版本</span>
      <Select
        data-testid="asset-version-pick"
        value={version?.id}
        onChange={setPicked}
        style={{ minWidth: 160 }}
        options={readyVersions.map((v) => ({ value: v.id, label: `v${v.version}${v.note ? ` · ${v.note}` : ''}` }))}
      />
    </div>
  ) : null;

  return (
    <PageContainer
      title={
        <Space wrap>
          <span data-testid="asset-title">{a.name}</span>
          {a.mine ? (
            <Tag color={vis.color}>{vis.text}</Tag>
          ) : a.visibility === 'public' ? (
            <Tag color="green">公开 · 只读</Tag>
          ) : (
            <Tag color="purple">{a.ownerName} 共享（只读）</Tag>
          )}
          {a.publishState === 'pending' ? <Tag color="gold">公开审核中</Tag> : null}
          {a.mine && a.publishState === 'none' && a.publishReason ? (
            <Tag color="red" data-testid="asset-publish-rejected">
              公开申请未通过
            </Tag>
          ) : null}
        </Space>
      }
      description={a.description || undefined}
      extra={
        a.mine ? (
          <Space wrap>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => (versionForm.resetFields(), setDialog('version'))} data-testid="asset-add-version">
              新建版本
            </Button>
            {trainButton}
            <Button icon={<ShareAltOutlined />} onClick={() => setDialog('share')} data-testid="asset-share-open">
              共享
            </Button>
            <Button icon={<EditOutlined />} onClick={() => setDialog('edit')} data-testid="asset-edit">
              编辑
            </Button>
            {a.publishState === 'none' ? (
              <Popconfirm title={`申请将该${label}发布到公共资源大厅？`} description="运营审核通过后，所有用户都可查看和使用。" okText="申请" cancelText="取消" onConfirm={() => publish.mutate()}>
                <Button icon={<SendOutlined />} data-testid="asset-publish">
                  申请公开
                </Button>
              </Popconfirm>
            ) : null}
            <Popconfirm title={`删除该${label}及其全部版本？`} description="删除后不可恢复。" okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => remove.mutate()}>
              <Button danger icon={<DeleteOutlined />} data-testid="asset-delete">
                删除
              </Button>
            </Popconfirm>
          </Space>
        ) : hall ? (
          <Space wrap>
            <Button onClick={() => navigate(`/public-data/${kind}`)}>返回大厅</Button>
            {trainButton}
            {a.added ? (
              // Already in the caller's 共享 list: nothing more to add.
              <Button icon={<CheckOutlined />} disabled title={`已在“共享${label}”列表中`} data-testid="asset-add-to-mine" data-added="true">
                已添加到我的
              </Button>
            ) : (
              <Button type="primary" loading={addToMine.isPending} onClick={() => addToMine.mutate()} data-testid="asset-add-to-mine" data-added="false">
                添加到我的
              </Button>
            )}
          </Space>
        ) : (
          trainButton
        )
      }
    >
      {a.mine && a.publishState === 'none' && a.publishReason ? (
        // The owner's last request was rejected: why, until they ask again.
        <Alert type="warning" showIcon style={{ marginBottom: 16 }} title={`公开申请未通过：${a.publishReason}`} description="修改后可再次点击“申请公开”。" data-testid="asset-publish-reason" />
      ) : null}
      <Card>
        <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3 }}>
          <Descriptions.Item label="所有者">{a.ownerName}</Descriptions.Item>
          <Descriptions.Item label="许可协议">{a.license || '—'}</Descriptions.Item>
          <Descriptions.Item label="标签">{a.tags.length ? a.tags.map((t) => <Tag key={t}>{t}</Tag>) : '—'}</Descriptions.Item>
          {kind === 'model' ? (
            <>
              <Descriptions.Item label="框架">{a.framework || '—'}</Descriptions.Item>
              <Descriptions.Item label="格式">{a.format || '—'}</Descriptions.Item>
              <Descriptions.Item label="指标">
                {Object.keys(a.metrics).length
                  ? Object.entries(a.metrics).map(([k, v]) => (
                      <Tag key={k} color="geekblue">
                        {k} = {v}
                      </Tag>
                    ))
                  : '—'}
              </Descriptions.Item>
            </>
          ) : null}
          <Descriptions.Item label="创建时间">{formatTime(a.createTime)}</Descriptions.Item>
          <Descriptions.Item label="更新时间">{formatTime(a.updateTime)}</Descriptions.Item>
        </Descriptions>
      </Card>
      <Card>
        <Tabs
          activeKey={tab}
          onChange={setTab}
          items={[
            {
              key: 'versions',
              label: `版本（${a.versions.length}）`,
              children: !screens.md ? (
                <VersionCards versions={a.versions} actions={versionActions} />
              ) : (
                <VersionTable versions={a.versions} mine={a.mine} actions={versionActions} />
              ),
            },
            {
              key: 'readme',
              label: '说明',
              children: version ? (
                <>
                  {picker}
                  <ReadmeView calls={calls} asset={a} version={version} />
                </>
              ) : (
                <Empty description="还没有可用的版本" />
              ),
            },
            {
              key: 'files',
              label: '文件',
              children: version ? (
                <>
                  {picker}
                  <FilesView key={version.id} calls={calls} asset={a} version={version} />
                </>
              ) : (
                <Empty description="还没有可用的版本" />
              ),
            },
          ]}
        />
      </Card>

      <AssetFormModal kind={kind} open={dialog === 'edit'} initial={a} submitting={update.isPending} onCancel={() => setDialog(null)} onSubmit={(b) => update.mutate(b as AssetUpdate)} />
      <Modal
        title="新建版本"
        open={dialog === 'version'}
        onCancel={() => setDialog(null)}
        onOk={() => versionForm.submit()}
        okText="生成版本"
        cancelText="取消"
        confirmLoading={addVersion.isPending}
        okButtonProps={{ 'data-testid': 'asset-version-ok' } as Record<`data-${string}`, string>}
        destroyOnHidden
      >
        <Form form={versionForm} layout="vertical" onFinish={(v) => addVersion.mutate(v)}>
          <SourceFields prefix={[]} required />
        </Form>
      </Modal>
      <Modal title={`共享${label}`} open={dialog === 'share'} onCancel={() => setDialog(null)} footer={null} destroyOnHidden>
        <Typography.Paragraph type="secondary">共享的用户可以查看、下载和在训练任务中挂载，不能修改或删除。</Typography.Paragraph>
        <Space.Compact style={{ width: '100%' }}>
          <Select
            mode="tags"
            value={shareNames}
            onChange={setShareNames}
            tokenSeparators={[',', '，', ' ']}
            placeholder="输入用户名后回车"
            style={{ width: '100%' }}
            open={false}
            data-testid="asset-share-names"
          />
          <Button type="primary" disabled={!shareNames.length} loading={share.isPending} onClick={() => share.mutate(shareNames)} data-testid="asset-share-ok">
            共享
          </Button>
        </Space.Compact>
        <Table
          style={{ marginTop: 16 }}
          size="small"
          rowKey="userId"
          pagination={false}
          dataSource={a.shares}
          locale={{ emptyText: '尚未共享给任何人' }}
          columns={[
            { title: '用户名', dataIndex: 'username' },
            { title: '昵称', dataIndex: 'nickname', render: (s: string) => s || '—' },
            {
              title: '操作',
              width: 90,
              render: (_: unknown, s) => (
                <Button type="link" size="small" danger onClick={() => unshare.mutate(s.userId)}>
                  取消共享
                </Button>
              ),
            },
          ]}
        />
        <Typography.Title level={5} style={{ marginTop: 24 }}>
          共享给团队
        </Typography.Title>
        <Typography.Paragraph type="secondary">团队的每位现有成员都可以查看、下载和挂载；成员退出团队后即失去访问权限。</Typography.Paragraph>
        <Space.Compact style={{ width: '100%' }}>
          <Select
            value={shareTeamId}
            onChange={setShareTeamId}
            placeholder={teams.data?.length ? '选择我所在的团队' : '你还没有加入任何团队'}
            style={{ width: '100%' }}
            loading={teams.isLoading}
            options={(teams.data ?? []).filter((t) => !a.teamShares.some((s) => s.teamId === t.id)).map((t) => ({ value: t.id, label: t.name }))}
            data-testid="asset-share-team"
          />
          <Button type="primary" disabled={!shareTeamId} loading={shareTeam.isPending} onClick={() => shareTeamId && shareTeam.mutate(shareTeamId)} data-testid="asset-share-team-ok">
            共享
          </Button>
        </Space.Compact>
        <Table
          style={{ marginTop: 16 }}
          size="small"
          rowKey="teamId"
          pagination={false}
          dataSource={a.teamShares}
          locale={{ emptyText: '尚未共享给任何团队' }}
          data-testid="asset-team-shares"
          columns={[
            { title: '团队', dataIndex: 'teamName' },
            {
              title: '操作',
              width: 90,
              render: (_: unknown, s) => (
                <Button type="link" size="small" danger onClick={() => unshareTeam.mutate(s.teamId)}>
                  取消共享
                </Button>
              ),
            },
          ]}
        />
      </Modal>
    </PageContainer>
  );
}
