import { ASSET_KINDS, type AssetKind } from '@suanli/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Input, Pagination, Popconfirm, Space, Spin, Table, Tabs, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { formatTime } from '../../shared/time';
import { getCurrentUser } from '../user-center/api';
import { PageContainer } from '../../shared/ui/page-container';
import { assetCalls } from '../asset/api';
import { AssetDetailPage } from '../asset/asset-detail-page';
import { AssetCard } from '../asset/asset-index-page';
import styles from '../asset/asset.module.css';

const PAGE_SIZE = 12;

/** /public-data/dataset and /public-data/model: the public hall, with search and tag filters. */
export function PublicDataIndexPage() {
  const kind: AssetKind = useLocation().pathname.endsWith('/model') ? 'model' : 'dataset';
  const navigate = useNavigate();
  const calls = useMemo(() => assetCalls(kind), [kind]);
  const [keyword, setKeyword] = useState('');
  const [tag, setTag] = useState<string | undefined>();
  const [pageNum, setPageNum] = useState(1);
  const query = { scope: 'public', keyword: keyword.trim() || undefined, tag, pageNum, pageSize: PAGE_SIZE } as const;
  const list = useQuery({ queryKey: queryKeys.asset.list(kind, query), queryFn: () => calls.page(query), placeholderData: keepPreviousData });
  // Tags offered as filters: those of the hall's first page without a filter (the common ones).
  const all = useQuery({ queryKey: queryKeys.asset.list(kind, { scope: 'public', pageNum: 1, pageSize: 100 }), queryFn: () => calls.page({ scope: 'public', pageNum: 1, pageSize: 100 }) });
  const tags = [...new Set((all.data?.list ?? []).flatMap((a) => a.tags))];
  const items = list.data?.list ?? [];
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 60_000 });
  const operator = me.data?.roles.includes('operator') ?? false;
  const [reviewing, setReviewing] = useState(false);
  return (
    <PageContainer title="公共资源大厅" description="平台公开的数据集与模型：查看说明和文件，添加到我的后在“共享”列表中使用。">
      <Card>
        <Tabs
          activeKey={kind}
          onChange={(k) => {
            setTag(undefined);
            setPageNum(1);
            navigate(`/public-data/${k}`);
          }}
          items={ASSET_KINDS.map((k) => ({ key: k, label: k === 'dataset' ? '数据集' : '模型' }))}
          tabBarExtraContent={
            <Input.Search
              allowClear
              placeholder="按名称或描述搜索"
              className={styles.search}
              onSearch={(v) => {
                setPageNum(1);
                setKeyword(v);
              }}
              data-testid="hall-search"
            />
          }
        />
        {operator ? (
          <Space className={styles.versionBar}>
            <Tag.CheckableTag checked={reviewing} onChange={setReviewing} data-testid="hall-review-toggle">
              待审核的公开申请（运营）
            </Tag.CheckableTag>
          </Space>
        ) : null}
        {reviewing ? <ReviewList kind={kind} /> : null}
        {!reviewing && tags.length ? (
          <Space size={[4, 8]} wrap className={styles.versionBar} data-testid="hall-tags">
            <span>标签：</span>
            <Tag.CheckableTag checked={!tag} onChange={() => setTag(undefined)}>
              全部
            </Tag.CheckableTag>
            {tags.map((t) => (
              <Tag.CheckableTag key={t} checked={tag === t} onChange={(on) => (setPageNum(1), setTag(on ? t : undefined))}>
                {t}
              </Tag.CheckableTag>
            ))}
          </Space>
        ) : null}
        {reviewing ? null : list.isLoading ? (
          <Spin className={styles.loading} />
        ) : items.length === 0 ? (
          <Empty description={keyword || tag ? '没有匹配的公开资源' : '暂无公开资源'} />
        ) : (
          <div className={styles.grid}>
            {items.map((a) => (
              <AssetCard key={a.id} asset={a} to={`/public-data/detail/${kind}/${a.id}`} />
            ))}
          </div>
        )}
        {!reviewing && (list.data?.total ?? 0) > PAGE_SIZE ? (
          <Pagination className={styles.pager} current={pageNum} pageSize={PAGE_SIZE} total={list.data?.total} onChange={setPageNum} showSizeChanger={false} />
        ) : null}
      </Card>
    </PageContainer>
  );
}

/** Operators: the publication requests of a kind, each approved into the hall or rejected (the owner is told). */
function ReviewList({ kind }: { kind: AssetKind }) {
  const calls = useMemo(() => assetCalls(kind), [kind]);
  const client = useQueryClient();
  const pending = useQuery({ queryKey: queryKeys.asset.list(kind, { pending: true }), queryFn: () => calls.pendingPublication() });
  const review = useMutation({
    mutationFn: ({ id, approve }: { id: string; approve: boolean }) => calls.review(id, approve),
    onSuccess: (_d, v) => {
      toast.success(v.approve ? '已通过，已发布到公共资源大厅' : '已驳回，已通知所有者');
      void client.invalidateQueries({ queryKey: queryKeys.asset.root(kind) });
    },
  });
  return (
    <Table
      rowKey="id"
      size="small"
      loading={pending.isLoading}
      dataSource={pending.data ?? []}
      pagination={false}
      scroll={{ x: 640 }}
      data-testid="hall-review"
      locale={{ emptyText: '没有待审核的公开申请' }}
      columns={[
        { title: '名称', dataIndex: 'name', render: (n: string, a) => <Link to={`/public-data/detail/${kind}/${a.id}`}>{n}</Link> },
        { title: '所有者', dataIndex: 'ownerName', width: 140 },
        { title: '申请时间', dataIndex: 'updateTime', width: 170, render: (t: number) => formatTime(t) },
        {
          title: '操作',
          width: 130,
          // On a phone the table scrolls sideways; the decision stays in view.
          fixed: 'right' as const,
          render: (_: unknown, a) => (
            <Space size={0}>
              <Button type="link" size="small" onClick={() => review.mutate({ id: a.id, approve: true })} data-testid="hall-review-approve">
                通过
              </Button>
              <Popconfirm title="驳回该公开申请？" okText="驳回" cancelText="取消" onConfirm={() => review.mutate({ id: a.id, approve: false })}>
                <Button type="link" size="small" danger>
                  驳回
                </Button>
              </Popconfirm>
            </Space>
          ),
        },
      ]}
    />
  );
}

/** /public-data/detail/:type/:id: the asset's page with 添加到我的. */
export function PublicDataDetailPage() {
  const { type } = useParams();
  return <AssetDetailPage key={type} kind={type === 'model' ? 'model' : 'dataset'} hall />;
}
