import { DatabaseOutlined, ExperimentOutlined, PlusOutlined } from '@ant-design/icons';
import { formatFileSize, type Asset, type AssetCreate, type AssetKind } from '@suanli/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Input, Pagination, Space, Spin, Tabs, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { PageContainer } from '../../shared/ui/page-container';
import { formatTime } from '../../shared/time';
import { assetCalls, KIND_LABEL } from './api';
import { AssetFormModal } from './asset-form';
import styles from './asset.module.css';

const PAGE_SIZE = 12;

export const VISIBILITY_TAG: Record<Asset['visibility'], { color: string; text: string }> = {
  private: { color: 'default', text: '私有' },
  shared: { color: 'blue', text: '已共享' },
  public: { color: 'green', text: '公开' },
};

/** One asset in a list: name, tags, description, versions and size. */
export function AssetCard({ asset, to }: { asset: Asset; to: string }) {
  const v = VISIBILITY_TAG[asset.visibility];
  return (
    <Card size="small" className={styles.card} data-testid="asset-card">
      <div className={styles.cardHead}>
        <Link to={to} className={styles.cardTitle} data-testid="asset-card-name">
          {asset.kind === 'dataset' ? <DatabaseOutlined /> : <ExperimentOutlined />} {asset.name}
        </Link>
        {asset.mine || asset.visibility === 'public' ? <Tag color={v.color}>{v.text}</Tag> : <Tag color="purple">来自 {asset.ownerName}</Tag>}
      </div>
      <Typography.Paragraph type="secondary" ellipsis={{ rows: 2 }} className={styles.cardDesc}>
        {asset.description || '暂无描述'}
      </Typography.Paragraph>
      <Space size={[4, 4]} wrap>
        {asset.tags.map((t) => (
          <Tag key={t}>{t}</Tag>
        ))}
        {/* The framework, unless a tag already says it (a model tagged numpy with framework numpy showed numpy twice). */}
        {asset.kind === 'model' && asset.framework && !asset.tags.some((t) => t.toLowerCase() === asset.framework.toLowerCase()) ? (
          <Tag color="geekblue">{asset.framework}</Tag>
        ) : null}
      </Space>
      <div className={styles.cardMeta}>
        <span>{asset.versionCount} 个版本</span>
        <span>{asset.latestSizeBytes ? formatFileSize(asset.latestSizeBytes) : '—'}</span>
        <span>更新于 {formatTime(asset.updateTime)}</span>
      </div>
    </Card>
  );
}

/** /dataset and /model: tabs 我的 / 共享, keyword search, cards, and the create form. */
export function AssetIndexPage({ kind }: { kind: AssetKind }) {
  const calls = useMemo(() => assetCalls(kind), [kind]);
  const label = KIND_LABEL[kind];
  const [params, setParams] = useSearchParams();
  const scope = params.get('tab') === 'shared' ? 'shared' : 'own';
  const [keyword, setKeyword] = useState('');
  const [pageNum, setPageNum] = useState(1);
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  const client = useQueryClient();
  const query = { scope, keyword: keyword.trim() || undefined, pageNum, pageSize: PAGE_SIZE } as const;
  const list = useQuery({ queryKey: queryKeys.asset.list(kind, query), queryFn: () => calls.page(query), placeholderData: keepPreviousData });
  const create = useMutation({
    mutationFn: (body: AssetCreate) => calls.create(body),
    onSuccess: (d) => {
      toast.success(d.versions.length ? `${label}已创建，正在生成 v1` : `${label}已创建`);
      setCreating(false);
      void client.invalidateQueries({ queryKey: queryKeys.asset.root(kind) });
      navigate(`/${kind}/detail/${d.id}`);
    },
  });

  const items = list.data?.list ?? [];
  return (
    <PageContainer
      title={label}
      description={kind === 'dataset' ? '从存储中的文件夹生成不可变的版本，浏览、下载并共享给同事。' : '登记训练产出的模型及其版本、框架与指标，共享或用于继续训练。'}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="asset-create">
          创建{label}
        </Button>
      }
    >
      <Card>
        <Tabs
          activeKey={scope}
          onChange={(k) => {
            setPageNum(1);
            setParams(k === 'shared' ? { tab: 'shared' } : {}, { replace: true });
          }}
          items={[
            { key: 'own', label: `我的${label}` },
            { key: 'shared', label: `共享${label}` },
          ]}
          tabBarExtraContent={
            <Input.Search
              allowClear
              placeholder="按名称或描述搜索"
              onSearch={(v) => {
                setPageNum(1);
                setKeyword(v);
              }}
              className={styles.search}
              data-testid="asset-search"
            />
          }
        />
        {list.isLoading ? (
          <Spin className={styles.loading} />
        ) : items.length === 0 ? (
          <Empty
            data-testid="asset-empty"
            description={scope === 'shared' ? `还没有人向你共享${label}` : keyword ? `没有匹配“${keyword}”的${label}` : `还没有${label}，点击右上角“创建${label}”开始`}
          />
        ) : (
          <div className={styles.grid}>
            {items.map((a) => (
              <AssetCard key={a.id} asset={a} to={`/${kind}/detail/${a.id}`} />
            ))}
          </div>
        )}
        {(list.data?.total ?? 0) > PAGE_SIZE ? (
          <Pagination className={styles.pager} current={pageNum} pageSize={PAGE_SIZE} total={list.data?.total} onChange={setPageNum} showSizeChanger={false} />
        ) : null}
      </Card>
      <AssetFormModal kind={kind} open={creating} submitting={create.isPending} onCancel={() => setCreating(false)} onSubmit={(b) => create.mutate(b as AssetCreate)} />
    </PageContainer>
  );
}
