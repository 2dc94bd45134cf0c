import { ASSET_KINDS, type Asset, type AssetKind, type ImagePublication } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Input, Modal, Space, Table, Tabs, Typography, type ButtonProps, type TableColumnsType } from 'antd';
import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { assetCalls, KIND_LABEL } from '../asset/api';
import { pendingImagePublications, reviewImagePublication } from '../image/api';
import { OperatorOnly } from './operator-only';

const TITLE = '审核';

type ReviewKind = AssetKind | 'image';
const REVIEW_KINDS: ReviewKind[] = [...ASSET_KINDS, 'image'];
const REVIEW_LABEL: Record<ReviewKind, string> = { ...KIND_LABEL, image: '公共镜像' };

/** One request being decided: a dataset or model to publish in the hall, or an image tag to make public. */
interface Decision {
  kind: ReviewKind;
  id: string;
  name: string;
  ownerName: string;
  approve: boolean;
}

const assetDecision = (a: Asset, approve: boolean): Decision => ({ kind: a.kind, id: a.id, name: a.name, ownerName: a.ownerName, approve });

function decide(d: Decision, reason: string): Promise<{ name: string }> {
  if (d.kind === 'image') return reviewImagePublication(d.id, d.approve, reason).then((p) => ({ name: p.source }));
  return assetCalls(d.kind).review(d.id, d.approve, reason);
}

/**
 * 通过 / 驳回 with what happens said first. A rejection needs its reason (the owner reads it in their message
 * and on the asset's page); both are kept in the audit log.
 */
function ReviewModal({ decision, onClose }: { decision: Decision | null; onClose: () => void }) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const approve = decision?.approve ?? false;
  const missing = !approve && !reason.trim();
  const close = () => {
    setReason('');
    setTouched(false);
    onClose();
  };
  const review = useMutation({
    mutationFn: (d: Decision) => decide(d, reason.trim()),
    onSuccess: (a, d) => {
      const approved = d.kind === 'image' ? `「${a.name}」已通过，已设为公共镜像` : `「${a.name}」已通过，已发布到公共资源大厅`;
      toast.success(d.approve ? approved : `已驳回「${a.name}」的公开申请，已通知申请人`);
      void client.invalidateQueries({ queryKey: d.kind === 'image' ? queryKeys.admin.imageReviews : queryKeys.asset.root(d.kind) });
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      close();
    },
  });
  return (
    <Modal
      open={decision !== null}
      title={`${approve ? '通过' : '驳回'}${decision?.kind === 'image' ? '公共镜像申请' : '公开申请'}`}
      okText={approve ? '通过' : '驳回'}
      okButtonProps={{ danger: !approve, loading: review.isPending, 'data-testid': 'admin-review-confirm' } as ButtonProps}
      cancelText="取消"
      onOk={() => {
        setTouched(true);
        if (decision && !missing) review.mutate(decision);
      }}
      onCancel={close}
      destroyOnHidden
    >
      {decision ? (
        // The padding keeps the text area's character count (drawn below it) clear of the footer.
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12, paddingBottom: 16 }} data-testid="admin-review-modal">
          <Typography.Paragraph style={{ margin: 0 }}>
            {decision.kind === 'image' ? '镜像' : KIND_LABEL[decision.kind]} <Typography.Text strong style={{ overflowWrap: 'anywhere' }}>{decision.name}</Typography.Text>（申请人 {decision.ownerName}）
          </Typography.Paragraph>
          {approve ? (
            <Alert
              type="info"
              showIcon
              title={
                decision.kind === 'image'
                  ? '通过后，平台会把申请时的镜像复制到 public 命名空间，所有用户创建任务时都可选用。申请人会收到通知。'
                  : '通过后该资源出现在公共资源大厅，所有用户都可以查看、添加和挂载使用。申请人会收到通知。'
              }
            />
          ) : (
            <Typography.Text type="secondary">驳回后资源保持原状，申请人会收到包含原因的通知，修改后可再次申请。</Typography.Text>
          )}
          <Input.TextArea
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={200}
            showCount
            rows={3}
            placeholder={approve ? '备注（选填，记入审计日志）' : '驳回原因（必填，会告知申请人）'}
            status={touched && missing ? 'error' : undefined}
            data-testid="admin-review-reason"
          />
          {touched && missing ? <Typography.Text type="danger">请填写驳回原因</Typography.Text> : null}
        </div>
      ) : null}
    </Modal>
  );
}

function DecisionButtons({ onDecide }: { onDecide: (approve: boolean) => void }) {
  return (
    <Space size={8}>
      <Button size="small" type="primary" onClick={() => onDecide(true)} data-testid="admin-review-approve">
        通过
      </Button>
      <Button size="small" danger onClick={() => onDecide(false)} data-testid="admin-review-reject">
        驳回
      </Button>
    </Space>
  );
}

/** Requests to make an image tag public: the image, the digest asked for, who asked and when. */
/**
 * Requests of one kind waiting for a decision: their own columns and 操作 on a desktop; on a phone one folded
 * column (what is asked, who asked and when, the buttons).
 */
function ReviewTable<T extends { id: string; ownerName: string }>(props: {
  rows: T[] | undefined;
  loading: boolean;
  /** The desktop columns before 操作. */
  columns: TableColumnsType<T>;
  /** What is asked for (the name or the image), as the phone column shows it first. */
  subject: (row: T) => ReactNode;
  askedAt: (row: T) => number;
  decide: (row: T, approve: boolean) => void;
  testId: string;
  empty: string;
}) {
  const screens = useBreakpoint();
  const actions = (r: T) => <DecisionButtons onDecide={(approve) => props.decide(r, approve)} />;
  const columns: TableColumnsType<T> = screens.md
    ? [...props.columns, { title: '操作', key: 'action', width: 150, fixed: 'right', render: (_v, r) => actions(r) }]
    : [
        {
          title: '申请',
          key: 'folded',
          render: (_v, r) => (
            <div style={{ minWidth: 0 }}>
              {props.subject(r)}
              <div style={{ fontSize: 12, color: 'rgba(0,0,0,0.45)', overflowWrap: 'anywhere' }}>
                {r.ownerName} · {formatTime(props.askedAt(r))}
              </div>
              <div style={{ marginTop: 6 }}>{actions(r)}</div>
            </div>
          ),
        },
      ];
  return (
    <Table
      rowKey="id"
      size="small"
      loading={props.loading}
      dataSource={props.rows ?? []}
      pagination={false}
      columns={columns}
      scroll={screens.md ? { x: 860 } : undefined}
      data-testid={props.testId}
      locale={{ emptyText: props.empty }}
    />
  );
}

function ImageTable({ onDecide }: { onDecide: (d: Decision) => void }) {
  const pending = useQuery({ queryKey: queryKeys.admin.imageReviews, queryFn: pendingImagePublications });
  const source = (p: ImagePublication) => (
    <span style={{ overflowWrap: 'anywhere', fontFamily: MONO }} data-testid="admin-review-name">
      {p.source}
    </span>
  );
  return (
    <ReviewTable<ImagePublication>
      rows={pending.data}
      loading={pending.isLoading}
      columns={[
        { title: '镜像', key: 'source', render: (_v, p) => source(p) },
        { title: '摘要', dataIndex: 'digest', key: 'digest', width: 200, render: (d: string) => <Typography.Text copyable={{ text: d }} style={{ fontFamily: MONO, fontSize: 12 }}>{d.slice(0, 19)}…</Typography.Text> },
        { title: '申请人', dataIndex: 'ownerName', key: 'ownerName', width: 140 },
        { title: '申请时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (t: number) => formatTime(t) },
      ]}
      subject={source}
      askedAt={(p) => p.createTime}
      decide={(p, approve) => onDecide({ kind: 'image', id: p.id, name: p.source, ownerName: p.ownerName, approve })}
      testId="admin-review-image"
      empty="没有待审核的公共镜像申请"
    />
  );
}

function PendingTable({ kind, onDecide }: { kind: AssetKind; onDecide: (d: Decision) => void }) {
  const pending = useQuery({ queryKey: queryKeys.asset.list(kind, { pending: true }), queryFn: () => assetCalls(kind).pendingPublication() });
  const name = (a: Asset) => (
    <Link to={`/public-data/detail/${kind}/${a.id}`} style={{ overflowWrap: 'anywhere' }} data-testid="admin-review-name">
      {a.name}
    </Link>
  );
  return (
    <ReviewTable<Asset>
      rows={pending.data}
      loading={pending.isLoading}
      columns={[
        { title: '名称', key: 'name', render: (_v, a) => name(a) },
        { title: '描述', dataIndex: 'description', key: 'description', ellipsis: true },
        { title: '申请人', dataIndex: 'ownerName', key: 'ownerName', width: 140 },
        { title: '版本数', dataIndex: 'versionCount', key: 'versionCount', width: 80 },
        { title: '申请时间', dataIndex: 'updateTime', key: 'updateTime', width: 170, render: (t: number) => formatTime(t) },
      ]}
      subject={name}
      askedAt={(a) => a.updateTime}
      decide={(a, approve) => onDecide(assetDecision(a, approve))}
      testId={`admin-review-${kind}`}
      empty={`没有待审核的${KIND_LABEL[kind]}公开申请`}
    />
  );
}

/**
 * /admin/reviews: requests to publish datasets and models in the public hall and to make image tags public
 * (`?kind=model|image` picks the tab), each approved or rejected with a reason.
 */
export function AdminReviewsPage() {
  const [params, setParams] = useSearchParams();
  const kind: ReviewKind = REVIEW_KINDS.find((k) => k === params.get('kind')) ?? 'dataset';
  const [decision, setDecision] = useState<Decision | null>(null);
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="用户申请公开的数据集、模型（发布到公共资源大厅）与镜像（设为公共镜像）：驳回须填写原因。每次审核都会通知申请人并记入审计日志。">
        <Card>
          <Tabs
            activeKey={kind}
            onChange={(k) => setParams(k === 'dataset' ? {} : { kind: k }, { replace: true })}
            items={REVIEW_KINDS.map((k) => ({
              key: k,
              label: REVIEW_LABEL[k],
              children: k === 'image' ? <ImageTable onDecide={setDecision} /> : <PendingTable kind={k} onDecide={setDecision} />,
            }))}
          />
        </Card>
        <ReviewModal decision={decision} onClose={() => setDecision(null)} />
      </PageContainer>
    </OperatorOnly>
  );
}
