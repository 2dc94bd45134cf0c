import { ASSET_KINDS, type AssetKind } from '@suanli/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Empty, Input, Pagination, Space, Spin, Tabs, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
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
          // Requests are decided in 运营管理 › 审核 (with a reason, audited); the hall only points there.
          <Space className={styles.versionBar}>
            <Link to={`/admin/reviews${kind === 'model' ? '?kind=model' : ''}`} data-testid="hall-review-link">
              待审核的公开申请（运营管理 › 审核）
            </Link>
          </Space>
        ) : null}
        {tags.length ? (
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
        {list.isLoading ? (
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
        {(list.data?.total ?? 0) > PAGE_SIZE ? (
          <Pagination className={styles.pager} current={pageNum} pageSize={PAGE_SIZE} total={list.data?.total} onChange={setPageNum} showSizeChanger={false} />
        ) : null}
      </Card>
    </PageContainer>
  );
}

/** /public-data/detail/:type/:id: the asset's page with 添加到我的. */
export function PublicDataDetailPage() {
  const { type } = useParams();
  return <AssetDetailPage key={type} kind={type === 'model' ? 'model' : 'dataset'} hall />;
}
