import { ArrowLeftOutlined } from '@ant-design/icons';
import type { JobState, TaskDetail } from '@suanli/contracts';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Descriptions, Result, Row, Skeleton, Space, Typography, type DescriptionsProps } from 'antd';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useBreakpoint } from '../hooks/use-breakpoint';
import { HelpLink } from '../ui/help-link';
import { MONO } from '../ui/mono';
import { PageContainer } from '../ui/page-container';
import { formatTime } from '../time';
import { LogPanel } from './log-panel';
import { DeleteTask, StopTask, type TaskActions } from './task-actions';
import type { TaskFamily } from './task-family';
import { TaskTimeline } from './task-timeline';
import { formatMinutes, runningTime, StateTag, useNow } from './task-view';

/** A family's task by id: one query under the family's root, which the socket's `task.state.changed` refreshes; nothing polls it. */
export function useTaskDetail(family: TaskFamily, id: string) {
  return useQuery({ queryKey: family.keys.detail(id), queryFn: () => family.calls.get(id), enabled: Boolean(id) });
}

interface TaskDetailFrameProps {
  detail: UseQueryResult<TaskDetail>;
  actions: TaskActions;
  /** The page's title while the task loads or cannot be read. */
  title: string;
  listPath: string;
  /** The family's own header buttons: `lead` before 停止, `trail` between 停止 and 删除. */
  lead?: (task: TaskDetail) => ReactNode;
  trail?: (task: TaskDetail) => ReactNode;
  /** The page's cards, given the task and a clock that ticks while it runs. */
  children: (task: TaskDetail, now: number) => ReactNode;
}

/** States in which the program ended by itself, so its exit code says how. */
const EXITED_STATES: readonly JobState[] = ['SUCCEEDED', 'FAILED'];

/** States where the user is likely stuck: the page offers a work order about the task. */
const HELP_STATES: readonly JobState[] = ['FAILED', 'SUBMIT_FAILED'];

/**
 * The frame of a task detail page: a skeleton while the task loads, a way back when it cannot be read, and
 * the header every family shares — the name and the live state tag (`<family>-detail-name`, `-state`),
 * type · 运行时长, then 返回列表, 停止 and 删除 (back to the list after it) around the family's own buttons.
 */
export function TaskDetailFrame({ detail, actions, title, listPath, lead, trail, children }: TaskDetailFrameProps) {
  const navigate = useNavigate();
  const task = detail.data;
  const now = useNow(Boolean(task?.startTime && !task.endTime));
  const { testId, typeLabels } = actions.family;

  if (detail.isLoading || !task) {
    return (
      <PageContainer title={title}>
        <Card>
          {detail.isLoading ? (
            <Skeleton active paragraph={{ rows: 10 }} />
          ) : (
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
          )}
        </Card>
      </PageContainer>
    );
  }

  return (
    <PageContainer
      title={
        <Space wrap size={8}>
          <span style={{ overflowWrap: 'anywhere' }} data-testid={`${testId}-detail-name`}>
            {task.name}
          </span>
          <StateTag state={task.state} reason={task.reason} testId={`${testId}-detail-state`} />
        </Space>
      }
      description={`${typeLabels[task.type] ?? task.type} · 运行时长 ${runningTime(task, now)}`}
      extra={
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(listPath)}>
            返回列表
          </Button>
          {lead?.(task)}
          <StopTask task={task} actions={actions} place="header" />
          {trail?.(task)}
          <DeleteTask task={task} actions={actions} place="header" onDeleted={() => navigate(listPath, { replace: true })} />
        </Space>
      }
    >
      {HELP_STATES.includes(task.state) ? (
        <Alert
          type="error"
          showIcon
          title={task.state === 'SUBMIT_FAILED' ? '任务未能提交' : '任务运行失败'}
          description={<HelpLink type="task" taskId={task.id} text="原因见下方的状态说明与运行日志。需要帮助时，可提交工单，运维人员能直接查看这个任务。" testId={`${testId}-detail-help`} />}
        />
      ) : null}
      {children(task, now)}
    </PageContainer>
  );
}

/** A card of a task's facts as a bordered table; below 576 px each label sits above its value, so values get the whole width. */
export function TaskFactsCard({ title = '基本信息', items, testId }: { title?: string; items: DescriptionsProps['items']; testId: string }) {
  const screens = useBreakpoint();
  return (
    <Card title={title}>
      <Descriptions
        bordered
        size="small"
        layout={screens.sm ? 'horizontal' : 'vertical'}
        column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 3, xxl: 3 }}
        styles={{ label: { whiteSpace: 'nowrap' } }}
        items={items}
        data-testid={testId}
      />
    </Card>
  );
}

type Fact = NonNullable<DescriptionsProps['items']>[number];

/** Text to read and copy exactly (paths, commands), in monospace; `—` when empty. */
export function MonoText({ text }: { text: string }) {
  return (
    <Typography.Text style={{ fontFamily: MONO, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} copyable={text ? { text } : false}>
      {text || '—'}
    </Typography.Text>
  );
}

/**
 * The facts every task has, for a family to arrange among its own: testids `<family>-detail-job-id`,
 * `<family>-queue-reason` while queued and `<family>-detail-reason` otherwise.
 */
export function taskFacts(task: TaskDetail, family: TaskFamily) {
  const prefix = family.testId;
  return {
    center: { key: 'center', label: '分中心', children: task.subCenterName || task.subCenterId },
    cardType: { key: 'cardType', label: '卡型', children: task.cardTypeName || task.cardTypeId },
    nodeNum: { key: 'nodeNum', label: '节点数', children: task.nodeNum },
    duration: { key: 'duration', label: '最长运行时长', children: formatMinutes(task.maxDurationMinutes) },
    jobId: { key: 'jobId', label: '作业ID', children: <span data-testid={`${prefix}-detail-job-id`}>{task.jobId ?? '—'}</span> },
    // Only a program that ended by itself has an exit code to read: a stopped one (by the user, the time
    // limit or the compute power running out) was killed, and its 0 or signal status would mislead.
    exitCode: {
      key: 'exitCode',
      label: '退出码',
      children: <span data-testid={`${prefix}-detail-exit-code`}>{(EXITED_STATES.includes(task.state) ? task.exitCode : null) ?? '—'}</span>,
    },
    /** 原任务: the task this one was resubmitted from (重新提交, 按建议重新提交, 复制), while it exists. */
    original: task.resubmittedFrom
      ? [
          {
            key: 'original',
            label: '原任务',
            children: (
              <Link to={family.detailPath(task.resubmittedFrom)} data-testid={`${prefix}-detail-original`}>
                {task.resubmittedFrom.name}
              </Link>
            ),
          },
        ]
      : [],
    times: [
      { key: 'createTime', label: '创建时间', children: formatTime(task.createTime) },
      { key: 'startTime', label: '开始时间', children: formatTime(task.startTime) },
      { key: 'endTime', label: '结束时间', children: formatTime(task.endTime) },
      // Drawn from the owner's compute power so far; rises while it runs (each draw pushes comp-power.changed).
      // Beside it, the task's own 消费记录 (费用明细 opens narrowed to this task by `taskId`).
      {
        key: 'consumed',
        label: '已消耗',
        children: (
          <Space size="small" wrap>
            <span data-testid={`${prefix}-detail-consumed`}>{task.consumed} 卡时</span>
            <Link to={`/expense?tab=consume&taskId=${encodeURIComponent(task.id)}`} data-testid={`${prefix}-detail-consume-records`}>
              消费记录
            </Link>
          </Space>
        ),
      },
    ],
    /** Why it waits and when it may start while queued; otherwise what its state says, if anything. */
    state:
      task.state === 'QUEUED'
        ? [
            { key: 'queueReason', label: '排队原因', children: <span data-testid={`${prefix}-queue-reason`}>{task.reason || '等待资源'}</span> },
            { key: 'estimatedStart', label: '预计开始时间', children: task.estimatedStart ? formatTime(task.estimatedStart) : '暂无预计' },
          ]
        : task.reason
          ? [{ key: 'reason', label: '状态说明', children: <span data-testid={`${prefix}-detail-reason`}>{task.reason}</span> }]
          : [],
    // The folder in 文件管理 on the task's center: where its outputs and log are.
    workDir: {
      key: 'workDir',
      label: '工作目录',
      span: 'filled',
      children: (
        <Space size={[12, 0]} wrap>
          <MonoText text={task.workDir} />
          <Link to={`/storage?${new URLSearchParams({ center: task.subCenterId, path: task.workDir })}`} data-testid={`${prefix}-detail-workdir-open`}>
            在文件管理中打开
          </Link>
        </Space>
      ),
    },
    env: {
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
    logPath: { key: 'logPath', label: '日志文件', span: 'filled', children: <MonoText text={task.logPath} /> },
  } satisfies Record<string, Fact | Fact[]>;
}

/** 状态变化 beside 运行日志 (above it on narrow screens). */
export function TaskProgress({ task, family }: { task: TaskDetail; family: TaskFamily }) {
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={8}>
        <Card title="状态变化" style={{ height: '100%' }}>
          <TaskTimeline events={task.events} testIdPrefix={family.testId} />
        </Card>
      </Col>
      <Col xs={24} lg={16}>
        <LogPanel task={task} family={family} />
      </Col>
    </Row>
  );
}
