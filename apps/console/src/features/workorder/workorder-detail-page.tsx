import { ArrowLeftOutlined, CheckCircleOutlined, CloseCircleOutlined, SendOutlined } from '@ant-design/icons';
import { WORKORDER_CONTENT_MAX, type WorkOrderAttachment, type WorkOrderDetail, type WorkOrderReplyCreate } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Empty, Form, Input, Popconfirm, Result, Space, Spin, Tag, Typography, type UploadFile } from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { useDict } from '../../app/dicts';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useUserStore } from '../../app/stores/user-store';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { TRAINING } from '../training/task-view';
import { SLURM } from '../slurm-task/task-view';
import { getCurrentUser } from '../user-center/api';
import { closeWorkOrder, findTask, getWorkOrder, replyWorkOrder, resolveWorkOrder } from './api';
import { ScreenshotField, Screenshots, StateTag, uploadedIds, uploading } from './workorder-view';

interface Message {
  key: string;
  authorName: string;
  operator: boolean;
  content: string;
  attachments: WorkOrderAttachment[];
  time: number;
  first: boolean;
}

/** The description is the first message, then the replies, oldest first. */
function conversation(order: WorkOrderDetail): Message[] {
  return [
    { key: 'description', authorName: order.ownerName, operator: false, content: order.description, attachments: order.attachments, time: order.createTime, first: true },
    ...order.replies.map((r) => ({ key: r.id, authorName: r.authorName, operator: r.authorRole === 'operator', content: r.content, attachments: r.attachments, time: r.createTime, first: false })),
  ];
}

function MessageItem({ m }: { m: Message }) {
  return (
    <div
      data-testid="wo-message"
      data-role={m.operator ? 'operator' : 'user'}
      style={{
        borderRadius: 8,
        padding: '12px 14px',
        background: m.operator ? '#f0f7ff' : '#fafafa',
        border: `1px solid ${m.operator ? '#d6e8ff' : '#f0f0f0'}`,
        minWidth: 0,
      }}
    >
      <div style={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 8, marginBottom: 6 }}>
        <Typography.Text strong style={{ overflowWrap: 'anywhere' }} data-testid="wo-message-author">
          {m.authorName}
        </Typography.Text>
        {m.operator ? (
          <Tag color="blue" style={{ marginInlineEnd: 0 }}>
            运维人员
          </Tag>
        ) : null}
        {m.first ? (
          <Tag style={{ marginInlineEnd: 0 }}>问题描述</Tag>
        ) : null}
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {formatTime(m.time)}
        </Typography.Text>
      </div>
      {/* Plain text as written: line breaks kept, never read as HTML. */}
      <div style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', lineHeight: 1.7 }} data-testid="wo-message-text">
        {m.content}
      </div>
      {m.attachments.length ? (
        <div style={{ marginTop: 10 }}>
          <Screenshots attachments={m.attachments} />
        </div>
      ) : null}
    </div>
  );
}

/** The linked task: a link to its detail page when the viewer can open it, else its name. */
function LinkedTask({ order, owner }: { order: WorkOrderDetail; owner: boolean }) {
  const link = order.link;
  const task = useQuery({ queryKey: queryKeys.workorder.linkedTask(link?.id ?? ''), queryFn: () => findTask(link!.id), enabled: Boolean(link && owner && link.name), staleTime: 60_000 });
  if (!link) return <>未关联</>;
  if (!link.name) return <Typography.Text type="secondary">任务已删除</Typography.Text>;
  if (task.data) {
    const path = task.data.kind === 'slurm' ? SLURM.detailPath(task.data) : TRAINING.detailPath(task.data);
    return (
      <Link to={path} style={{ overflowWrap: 'anywhere' }} data-testid="wo-task-link">
        {link.name}
      </Link>
    );
  }
  return <span style={{ overflowWrap: 'anywhere' }}>{link.name}</span>;
}

interface ReplyValues {
  content?: string;
  files?: UploadFile[];
}

function ReplyBox({ order, owner }: { order: WorkOrderDetail; owner: boolean }) {
  const [form] = Form.useForm<ReplyValues>();
  const queryClient = useQueryClient();
  const files = Form.useWatch('files', form);
  const reply = useMutation({
    mutationFn: (body: WorkOrderReplyCreate) => replyWorkOrder(order.id, body),
    onSuccess: (next) => {
      toast.success('回复已发送');
      queryClient.setQueryData(queryKeys.workorder.detail(order.id), next);
      void queryClient.invalidateQueries({ queryKey: queryKeys.workorder.listRoot });
      form.resetFields();
    },
  });
  const submit = (v: ReplyValues) => {
    const body: WorkOrderReplyCreate = { content: v.content!.trim() };
    const ids = uploadedIds(v.files);
    if (ids) body.attachmentIds = ids;
    reply.mutate(body);
  };
  return (
    <Form<ReplyValues> form={form} layout="vertical" onFinish={submit} data-testid="wo-reply-form">
      {order.state === 'RESOLVED' && owner ? (
        <Alert type="success" showIcon style={{ marginBottom: 12 }} title="运维人员已将此工单标记为已解决。如问题仍未解决，可继续回复，工单将重新进入处理中。" />
      ) : null}
      <Form.Item
        name="content"
        label="回复"
        rules={[
          { required: true, whitespace: true, message: '请输入回复内容' },
          { max: WORKORDER_CONTENT_MAX, message: `回复不能超过 ${WORKORDER_CONTENT_MAX} 个字符` },
        ]}
      >
        <Input.TextArea placeholder="补充说明问题或回复运维人员" autoSize={{ minRows: 3, maxRows: 10 }} maxLength={WORKORDER_CONTENT_MAX} showCount data-testid="wo-reply-text" />
      </Form.Item>
      <Form.Item name="files" label="截图（选填）" valuePropName="value">
        <ScreenshotField testId="wo-reply-shots" />
      </Form.Item>
      <Button type="primary" htmlType="submit" icon={<SendOutlined />} loading={reply.isPending} disabled={uploading(files)} data-testid="wo-reply-submit">
        发送回复
      </Button>
    </Form>
  );
}

/**
 * 工单详情 (/workorder/detail/:id): the work order's facts, the conversation (description first, replies
 * oldest first, screenshots as thumbnails), the reply box while it is not closed, 关闭工单 (owner and
 * operators) and 标记已解决 (operators). `workorder.changed` refreshes it while it is open.
 */
export function WorkorderDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const screens = useBreakpoint();
  const states = useDict('workorder_states');
  const types = useDict('workorder_types');
  const userId = useUserStore((s) => s.userInfo.id);
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 60_000 });
  const operator = me.data?.roles.includes('operator') ?? false;
  const detail = useQuery({ queryKey: queryKeys.workorder.detail(id), queryFn: () => getWorkOrder(id) });

  const settle = (next: WorkOrderDetail, text: string) => {
    toast.success(text);
    queryClient.setQueryData(queryKeys.workorder.detail(id), next);
    return queryClient.invalidateQueries({ queryKey: queryKeys.workorder.listRoot });
  };
  const close = useMutation({ mutationFn: () => closeWorkOrder(id), onSuccess: (next) => settle(next, '工单已关闭') });
  const resolve = useMutation({ mutationFn: () => resolveWorkOrder(id), onSuccess: (next) => settle(next, '工单已标记为已解决') });

  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate('/workorder')} data-testid="wo-back">
      返回列表
    </Button>
  );

  if (detail.isPending) {
    return (
      <PageContainer title="工单详情">
        <Card>
          <Spin />
        </Card>
      </PageContainer>
    );
  }
  if (!detail.data) {
    return (
      <PageContainer title="工单详情">
        <Card>
          <Result status="warning" title="无法打开此工单" subTitle={detail.error?.message || '工单不存在或您无权查看'} extra={back} />
        </Card>
      </PageContainer>
    );
  }

  const order = detail.data;
  const owner = order.ownerId === userId;
  const closed = order.state === 'CLOSED';
  const messages = conversation(order);

  const actions = (
    <Space wrap>
      {back}
      {operator && (order.state === 'PENDING' || order.state === 'PROCESSING') ? (
        <Popconfirm title="确定将此工单标记为已解决吗？" description="用户会收到通知；如问题仍未解决，用户可继续回复。" okText="标记已解决" cancelText="取消" onConfirm={() => resolve.mutateAsync()}>
          <Button icon={<CheckCircleOutlined />} loading={resolve.isPending} data-testid="wo-resolve">
            标记已解决
          </Button>
        </Popconfirm>
      ) : null}
      {!closed && (owner || operator) ? (
        <Popconfirm title="确定关闭此工单吗？" description="关闭后不能再回复，如有新问题请重新提交工单。" okText="关闭工单" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => close.mutateAsync()}>
          <Button danger icon={<CloseCircleOutlined />} loading={close.isPending} data-testid="wo-close">
            关闭工单
          </Button>
        </Popconfirm>
      ) : null}
    </Space>
  );

  return (
    <PageContainer title="工单详情" extra={actions}>
      <Card data-testid="wo-detail">
        <div style={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 8, marginBottom: 16 }}>
          <Typography.Title level={5} style={{ margin: 0, overflowWrap: 'anywhere', minWidth: 0 }} data-testid="wo-detail-title">
            {order.title}
          </Typography.Title>
          <StateTag state={order.state} labels={states.labels} />
        </div>
        <Descriptions column={screens.lg ? 3 : screens.sm ? 2 : 1} size="small">
          <Descriptions.Item label="工单编号">
            <span style={{ fontFamily: MONO }} data-testid="wo-detail-no">
              {order.orderNo}
            </span>
          </Descriptions.Item>
          <Descriptions.Item label="问题类型">{types.labels[order.type] ?? order.type}</Descriptions.Item>
          <Descriptions.Item label="关联任务">
            <LinkedTask order={order} owner={owner} />
          </Descriptions.Item>
          <Descriptions.Item label="提交人">{order.ownerName}</Descriptions.Item>
          <Descriptions.Item label="创建时间">{formatTime(order.createTime)}</Descriptions.Item>
          <Descriptions.Item label="更新时间">{formatTime(order.updateTime)}</Descriptions.Item>
        </Descriptions>
      </Card>
      <Card title={`沟通记录（${messages.length}）`} styles={{ body: { padding: screens.sm ? 24 : 12 } }}>
        {messages.length ? (
          <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="wo-conversation">
            {messages.map((m) => (
              <MessageItem key={m.key} m={m} />
            ))}
          </Space>
        ) : (
          <Empty />
        )}
      </Card>
      <Card styles={{ body: { padding: screens.sm ? 24 : 12 } }}>
        {closed ? (
          <Alert type="info" showIcon title="工单已关闭，无法继续回复。如有新问题，请重新提交工单。" data-testid="wo-closed" />
        ) : (
          <ReplyBox order={order} owner={owner} />
        )}
      </Card>
    </PageContainer>
  );
}
