import { ArrowLeftOutlined, CodeOutlined, CopyOutlined, DeleteOutlined, StopOutlined } from '@ant-design/icons';
import { isTerminal, type TaskDetail } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Descriptions, Popconfirm, Result, Row, Skeleton, Space, Typography, type DescriptionsProps } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { RegisterModelButton } from '../asset/register-model-button';
import { ideTicket, taskSsh } from './api';
import { LogPanel } from './components/log-panel';
import { MetricsPanel } from './components/metrics-chart';
import { TaskTimeline } from './components/task-timeline';
import { useTaskActions } from '../../shared/task/task-actions';
import { canStop, formatMinutes, runningTime, StateTag, useNow } from '../../shared/task/task-view';
import { formatDuration, formatTime } from '../../shared/time';
import { isTrainingType, TRAINING, TYPE_INFO } from './task-view';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';

/**
 * 训练任务详情 (/training/detail/:type/:id). The task (and so its state tag, times and timeline) is one
 * query under the `training` root: the socket's `task.state.changed` refreshes it; nothing polls it.
 */
export function TrainingDetailPage() {
  const { id = '', type } = useParams();
  const navigate = useNavigate();
  const detail = useQuery({ queryKey: queryKeys.training.detail(id), queryFn: () => TRAINING.calls.get(id), enabled: Boolean(id) });
  const { stop, remove } = useTaskActions(TRAINING);
  const screens = useBreakpoint();
  const task = detail.data;
  const now = useNow(Boolean(task?.startTime && !task.endTime));
  const listPath = TYPE_INFO[isTrainingType(task?.type) ? task.type : isTrainingType(type) ? type : 'train'].path;

  if (detail.isLoading) {
    return (
      <PageContainer title="训练任务详情">
        <Card>
          <Skeleton active paragraph={{ rows: 10 }} />
        </Card>
      </PageContainer>
    );
  }
  if (!task) {
    return (
      <PageContainer title="训练任务详情">
        <Card>
          <Result
            status="warning"
            title="任务不存在或无法读取"
            subTitle={detail.error?.message}
            extra={
              <Button type="primary" onClick={() => navigate(listPath)}>
                返回任务列表
              </Button>
            }
          />
        </Card>
      </PageContainer>
    );
  }

  return (
    <PageContainer
      title={
        <Space wrap size={8}>
          <span style={{ overflowWrap: 'anywhere' }} data-testid="training-detail-name">
            {task.name}
          </span>
          <StateTag state={task.state} reason={task.reason} testId="training-detail-state" />
        </Space>
      }
      description={`${TYPE_INFO[task.type as keyof typeof TYPE_INFO]?.label ?? task.type} · 运行时长 ${runningTime(task, now)}`}
      extra={
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(listPath)}>
            返回列表
          </Button>
          {task.type === 'develop' && task.state === 'RUNNING' && <OpenIdeButton taskId={task.id} />}
          {canStop(task.state) && (
            <Popconfirm title="确定停止该任务吗？" okText="停止" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => stop.mutateAsync(task.id)}>
              <Button danger icon={<StopOutlined />} loading={stop.isPending} data-testid="training-detail-stop">
                停止
              </Button>
            </Popconfirm>
          )}
          {task.state === 'SUCCEEDED' && task.type !== 'develop' && <RegisterModelButton task={task} />}
          <Button icon={<CopyOutlined />} onClick={() => navigate(`/training/task/${task.type}?from=${encodeURIComponent(task.id)}`)} data-testid="training-detail-copy">
            复制并重新提交
          </Button>
          {isTerminal(task.state) && (
            <Popconfirm
              title="确定删除该任务吗？删除后不可恢复。"
              okText="删除"
              cancelText="取消"
              okButtonProps={{ danger: true }}
              onConfirm={() => remove.mutateAsync(task.id).then(() => navigate(listPath, { replace: true }))}
            >
              <Button danger icon={<DeleteOutlined />} loading={remove.isPending} data-testid="training-detail-delete">
                删除
              </Button>
            </Popconfirm>
          )}
        </Space>
      }
    >
      {task.startTime && !task.endTime && task.state !== 'STOPPING' && <ExpiryNotice task={task} now={now} />}
      {task.type === 'develop' && task.state === 'RUNNING' && <SshCard task={task} />}
      <Card title="基本信息">
        <Descriptions
          bordered
          size="small"
          // Below 576 px each label sits above its value, so values get the whole width.
          layout={screens.sm ? 'horizontal' : 'vertical'}
          column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 3, xxl: 3 }}
          styles={{ label: { whiteSpace: 'nowrap' } }}
          items={describe(task)}
          data-testid="training-detail-info"
        />
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8}>
          <Card title="状态变化" style={{ height: '100%' }}>
            <TaskTimeline events={task.events} />
          </Card>
        </Col>
        <Col xs={24} lg={16}>
          <LogPanel taskId={task.id} taskName={task.name} state={task.state} />
        </Col>
      </Row>
      <MetricsPanel taskId={task.id} state={task.state} />
    </PageContainer>
  );
}

/** 最长运行时长 runs out: when, and a warning in its last EXPIRY_WARN_MS (develop environments especially). */
const EXPIRY_WARN_MS = 10 * 60_000;
/**
 * 打开: the IDE in a new tab through the gateway's proxy. The tab is opened before the ticket call so the
 * browser does not take it for a pop-up; it is pointed at the one-minute ticket URL once it arrives.
 */
function OpenIdeButton({ taskId }: { taskId: string }) {
  const [busy, setBusy] = useState(false);
  const open = async () => {
    const tab = window.open('', '_blank');
    setBusy(true);
    try {
      const { url } = await ideTicket(taskId);
      if (tab) {
        tab.opener = null;
        tab.location.href = url;
      } else window.location.assign(url);
    } catch {
      tab?.close();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button type="primary" icon={<CodeOutlined />} loading={busy} onClick={() => void open()} data-testid="training-detail-open-ide">
      打开
    </Button>
  );
}

/**
 * SSH 登录 for a running develop environment on a Slurm center: the login node with the user's own key pair
 * (installed on that center under 密钥对), straight into the job's allocation. Local environments have no
 * login node: the server says so and no card is shown.
 */
function SshCard({ task }: { task: TaskDetail }) {
  const ssh = useQuery({ queryKey: queryKeys.training.ssh(task.id), queryFn: () => taskSsh(task.id), retry: false });
  if (!ssh.data) return null;
  return (
    <Card title="SSH 登录" size="small" style={{ marginBottom: 16 }} data-testid="training-detail-ssh">
      <Typography.Paragraph style={{ marginBottom: 8 }}>
        <Typography.Text code copyable={{ text: ssh.data.command }} style={{ fontFamily: MONO, overflowWrap: 'anywhere' }} data-testid="training-detail-ssh-command">
          {ssh.data.command}
        </Typography.Text>
      </Typography.Paragraph>
      <Typography.Text type="secondary">
        以集群账号 {ssh.data.account} 登录{task.subCenterName}的登录节点，并进入作业 {ssh.data.jobId} 的计算节点。请先在 <Link to="/keypair">密钥对</Link>{' '}
        中生成或导入密钥并安装到{task.subCenterName}；私钥不在默认位置时，在 ssh 后加上 -i 私钥文件。
      </Typography.Text>
    </Card>
  );
}

function ExpiryNotice({ task, now }: { task: TaskDetail; now: number }) {
  const end = task.startTime! + task.maxDurationMinutes * 60_000;
  const left = end - now;
  const soon = left <= EXPIRY_WARN_MS;
  if (!soon && task.type !== 'develop') return null;
  return (
    <Alert
      type={soon ? 'warning' : 'info'}
      showIcon
      data-testid="training-expiry"
      title={
        left > 0
          ? `${task.type === 'develop' ? '开发环境' : '任务'}将于 ${formatTime(end)} 到达最长运行时长并被停止（剩余 ${formatDuration(left)}）${soon ? '，请及时保存工作' : ''}`
          : '任务已到达最长运行时长，正在停止'
      }
    />
  );
}

function describe(task: TaskDetail): DescriptionsProps['items'] {
  const mono = (text: string) => (
    <Typography.Text style={{ fontFamily: MONO, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} copyable={text ? { text } : false}>
      {text || '—'}
    </Typography.Text>
  );
  const items: DescriptionsProps['items'] = [
    { key: 'center', label: '分中心', children: task.subCenterName || task.subCenterId },
    { key: 'cardType', label: '卡型', children: task.cardTypeName || task.cardTypeId },
    { key: 'cardNum', label: task.nodeNum > 1 ? '每节点卡数' : '卡数', children: task.cardNum },
    { key: 'nodeNum', label: '节点数', children: task.nodeNum },
    { key: 'image', label: '镜像', children: task.imageName || task.imageId || '—' },
    { key: 'duration', label: '最长运行时长', children: formatMinutes(task.maxDurationMinutes) },
    { key: 'jobId', label: '作业ID', children: task.jobId ?? '—' },
    { key: 'exitCode', label: '退出码', children: task.exitCode ?? '—' },
    { key: 'createTime', label: '创建时间', children: formatTime(task.createTime) },
    { key: 'startTime', label: '开始时间', children: formatTime(task.startTime) },
    { key: 'endTime', label: '结束时间', children: formatTime(task.endTime) },
  ];
  if (task.state === 'QUEUED') {
    items.push(
      { key: 'queueReason', label: '排队原因', children: <span data-testid="training-queue-reason">{task.reason || '等待资源'}</span> },
      { key: 'estimatedStart', label: '预计开始时间', children: task.estimatedStart ? formatTime(task.estimatedStart) : '暂无预计' },
    );
  } else if (task.reason) {
    items.push({ key: 'reason', label: '状态说明', children: task.reason });
  }
  items.push(
    { key: 'placement', label: '调度原因', span: 'filled', children: task.placementReason || '用户指定分中心' },
    { key: 'workDir', label: '工作目录', span: 'filled', children: mono(task.workDir) },
    { key: 'command', label: '启动命令', span: 'filled', children: mono(task.command) },
    {
      key: 'env',
      label: '环境变量',
      span: 'filled',
      children: task.env.length ? (
        <div style={{ fontFamily: MONO, overflowWrap: 'anywhere' }}>
          {task.env.map((e) => (
            <div key={e.name}>
              {e.name}={e.value}
            </div>
          ))}
        </div>
      ) : (
        '—'
      ),
    },
    ...(task.mounts.length
      ? [
          {
            key: 'mounts',
            label: '挂载（只读）',
            span: 'filled' as const,
            children: (
              <div data-testid="training-detail-mounts">
                {task.mounts.map((m) => (
                  <div key={m.versionId}>
                    {m.kind === 'dataset' ? '数据集' : '模型'} {m.name} v{m.version} → <span style={{ fontFamily: MONO }}>${m.env}</span>
                  </div>
                ))}
              </div>
            ),
          },
        ]
      : []),
    { key: 'logPath', label: '日志文件', span: 'filled', children: mono(task.logPath) },
  );
  return items;
}
