import { CodeOutlined, CopyOutlined } from '@ant-design/icons';
import type { TaskDetail } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Typography, type DescriptionsProps } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useTaskActions } from '../../shared/task/task-actions';
import { DiagnosisCard, EfficiencyCard } from '../../shared/task/diagnosis-card';
import { MonoText, TaskDetailFrame, TaskFactsCard, taskFacts, TaskProgress, useTaskDetail } from '../../shared/task/task-detail';
import { formatDuration, formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { RegisterModelButton } from '../asset/register-model-button';
import { ideTicket, taskSsh } from './api';
import { MetricsPanel } from './components/metrics-chart';
import { copyPath, isTrainingType, TRAINING, TYPE_INFO } from './task-view';

/**
 * 训练任务详情 (/training/detail/:type/:id) on the task kit, with what only training has: 打开 and SSH 登录
 * for a running develop environment, the 最长运行时长 notice, 登记为模型, 复制并重新提交, the image, command
 * and mounts among the facts, and the training curves.
 */
export function TrainingDetailPage() {
  const { id = '', type } = useParams();
  const navigate = useNavigate();
  const detail = useTaskDetail(TRAINING, id);
  const actions = useTaskActions(TRAINING);
  const task = detail.data;
  const listPath = TYPE_INFO[isTrainingType(task?.type) ? task.type : isTrainingType(type) ? type : 'train'].path;

  return (
    <TaskDetailFrame
      detail={detail}
      actions={actions}
      title="训练任务详情"
      listPath={listPath}
      lead={(t) => t.type === 'develop' && t.state === 'RUNNING' && <OpenIdeButton taskId={t.id} />}
      trail={(t) => (
        <>
          {t.state === 'SUCCEEDED' && t.type !== 'develop' && <RegisterModelButton task={t} />}
          <Button icon={<CopyOutlined />} onClick={() => navigate(copyPath(t))} data-testid="training-detail-copy">
            复制并重新提交
          </Button>
        </>
      )}
    >
      {(t, now) => (
        <>
          {t.startTime && !t.endTime && t.state !== 'STOPPING' && <ExpiryNotice task={t} now={now} />}
          {t.type === 'develop' && t.state === 'RUNNING' && <SshCard task={t} />}
          <DiagnosisCard
            task={t}
            family={TRAINING}
            // The training form has no memory field: only a longer limit or other cards are applied (the form,
            // pre-filled with the change, opens for a look before submitting).
            canApply={(c) => Boolean(c.maxDurationMinutes || c.cardNum != null)}
            apply={(c) => navigate(`${copyPath(t)}&change=${encodeURIComponent(JSON.stringify(c))}`)}
          />
          <TaskFactsCard items={describe(t)} testId="training-detail-info" />
          <EfficiencyCard task={t} family={TRAINING} />
          <TaskProgress task={t} family={TRAINING} />
          <MetricsPanel taskId={t.id} state={t.state} />
        </>
      )}
    </TaskDetailFrame>
  );
}

/** 最长运行时长 runs out: when, and a warning in its last EXPIRY_WARN_MS (develop environments especially). */
const EXPIRY_WARN_MS = 10 * 60_000;
/**
 * 打开: the IDE in a new tab, on its own origin through the gateway's proxy (never the console's: ADR 0014).
 * The tab is opened before the ticket call so the browser does not take it for a pop-up; it is pointed at the
 * one-minute, single-use ticket URL once it arrives, and cut off from this page (`opener = null`).
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
  const f = taskFacts(task, TRAINING);
  return [
    f.center,
    f.cardType,
    { key: 'cardNum', label: task.nodeNum > 1 ? '每节点卡数' : '卡数', children: task.cardNum },
    f.nodeNum,
    { key: 'image', label: '镜像', children: task.imageName || task.imageId || '—' },
    f.duration,
    f.jobId,
    ...f.original,
    f.exitCode,
    ...f.times,
    ...f.state,
    { key: 'placement', label: '调度原因', span: 'filled', children: task.placementReason || '用户指定分中心' },
    f.workDir,
    { key: 'command', label: '启动命令', span: 'filled', children: <MonoText text={task.command} /> },
    f.env,
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
    f.logPath,
  ];
}
