import { ArrowLeftOutlined, DeleteOutlined, RedoOutlined, SaveOutlined, StopOutlined } from '@ant-design/icons';
import { isTerminal, type SlurmTemplate, type TaskDetail } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Collapse, Descriptions, Popconfirm, Result, Row, Skeleton, Space, Typography, type DescriptionsProps } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { getTemplate } from '../slurm-template/api';
import { MONO, resourcesText } from '../slurm-template/template-view';
import { LogPanel, type LogSource } from '../training/components/log-panel';
import { TaskTimeline } from '../training/components/task-timeline';
import { useTaskActions } from '../../shared/task/task-actions';
import { canStop, formatMinutes, runningTime, StateTag, useNow } from '../../shared/task/task-view';
import { formatTime } from '../../shared/time';

import { SaveTemplateModal } from './components/save-template-modal';
import { LIST_PATH, SLURM, SLURM_TYPE_LABELS } from './task-view';

const SLURM_LOG: LogSource = { read: SLURM.calls.readLog, download: SLURM.calls.downloadLog };

/**
 * 作业详情 (/slurm-task/detail/:type/:id). The task (state tag, times, timeline) is one query under the
 * `slurm-task` root: the socket's `task.state.changed` refreshes it; nothing polls it. The log panel follows
 * the job's output file from `nextOffset` while it runs.
 */
export function SlurmTaskDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const detail = useQuery({ queryKey: queryKeys.slurmTask.detail(id), queryFn: () => SLURM.calls.get(id), enabled: Boolean(id) });
  const task = detail.data;
  const template = useQuery({
    queryKey: queryKeys.slurmTemplate.detail(task?.templateId ?? ''),
    queryFn: () => getTemplate(task!.templateId!, { silent: true }),
    enabled: Boolean(task?.templateId),
    retry: false,
    staleTime: 60_000,
  });
  const { stop, resubmit, remove } = useTaskActions(SLURM);
  const [saving, setSaving] = useState(false);
  const now = useNow(Boolean(task?.startTime && !task.endTime));

  if (detail.isLoading) {
    return (
      <PageContainer title="作业详情">
        <Card>
          <Skeleton active paragraph={{ rows: 10 }} />
        </Card>
      </PageContainer>
    );
  }
  if (!task) {
    return (
      <PageContainer title="作业详情">
        <Card>
          <Result
            status="warning"
            title="任务不存在或无法读取"
            subTitle={detail.error?.message}
            extra={
              <Button type="primary" onClick={() => navigate(LIST_PATH)}>
                返回任务列表
              </Button>
            }
          />
        </Card>
      </PageContainer>
    );
  }

  const paramEntries = Object.entries(task.params ?? {});

  return (
    <PageContainer
      title={
        <Space wrap size={8}>
          <span style={{ overflowWrap: 'anywhere' }} data-testid="slurm-detail-name">
            {task.name}
          </span>
          <StateTag state={task.state} reason={task.reason} testId="slurm-detail-state" />
        </Space>
      }
      description={`${SLURM_TYPE_LABELS[task.type as keyof typeof SLURM_TYPE_LABELS] ?? task.type} · 运行时长 ${runningTime(task, now)}`}
      extra={
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(LIST_PATH)}>
            返回列表
          </Button>
          {canStop(task.state) && (
            <Popconfirm title="确定停止该任务吗？" okText="停止" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => stop.mutateAsync(task.id)}>
              <Button danger icon={<StopOutlined />} loading={stop.isPending} data-testid="slurm-detail-stop">
                停止
              </Button>
            </Popconfirm>
          )}
          <Popconfirm
            title="确定重新提交该任务吗？"
            description="将以相同的脚本与资源创建一个新任务。"
            okText="重新提交"
            cancelText="取消"
            onConfirm={() => resubmit.mutateAsync(task.id).then((t) => navigate(SLURM.detailPath(t)))}
          >
            <Button icon={<RedoOutlined />} loading={resubmit.isPending} data-testid="slurm-detail-resubmit">
              重新提交
            </Button>
          </Popconfirm>
          <Button icon={<SaveOutlined />} onClick={() => setSaving(true)} data-testid="slurm-detail-save-template">
            另存为模板
          </Button>
          {isTerminal(task.state) && (
            <Popconfirm
              title="确定删除该任务吗？删除后不可恢复。"
              okText="删除"
              cancelText="取消"
              okButtonProps={{ danger: true }}
              onConfirm={() => remove.mutateAsync(task.id).then(() => navigate(LIST_PATH, { replace: true }))}
            >
              <Button danger icon={<DeleteOutlined />} loading={remove.isPending} data-testid="slurm-detail-delete">
                删除
              </Button>
            </Popconfirm>
          )}
        </Space>
      }
    >
      <Card title="基本信息">
        <Descriptions
          bordered
          size="small"
          layout={screens.sm ? 'horizontal' : 'vertical'}
          column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 3, xxl: 3 }}
          items={describe(task, template.data)}
          data-testid="slurm-detail-info"
        />
      </Card>
      {paramEntries.length > 0 && (
        <Card title="参数">
          <Descriptions
            bordered
            size="small"
            layout={screens.sm ? 'horizontal' : 'vertical'}
            column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 3, xxl: 3 }}
            data-testid="slurm-detail-params"
            items={paramEntries.map(([name, value]) => {
              const p = template.data?.params.find((x) => x.name === name);
              return {
                key: name,
                label: p ? p.label : name,
                children: (
                  <Typography.Text style={{ fontFamily: p?.type === 'path' || p?.type === 'text' || !p ? MONO : undefined, overflowWrap: 'anywhere' }} data-testid={`slurm-detail-param-${name}`}>
                    {String(value)}
                  </Typography.Text>
                ),
              };
            })}
          />
        </Card>
      )}
      <Collapse
        data-testid="slurm-detail-script-panel"
        items={[
          {
            key: 'script',
            label: task.type === 'template' ? '作业脚本（由模板生成）' : '作业脚本',
            extra: (
              <span onClick={(e) => e.stopPropagation()}>
                <Typography.Text copyable={{ text: task.command, tooltips: ['复制脚本', '已复制'] }} />
              </span>
            ),
            children: (
              <pre
                data-testid="slurm-detail-script"
                style={{ margin: 0, fontFamily: MONO, fontSize: 12, lineHeight: 1.6, whiteSpace: 'pre', overflowX: 'auto', maxHeight: 480 }}
              >
                {task.command}
              </pre>
            ),
          },
        ]}
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8}>
          <Card title="状态变化" style={{ height: '100%' }}>
            <TaskTimeline events={task.events} testIdPrefix="slurm" />
          </Card>
        </Col>
        <Col xs={24} lg={16}>
          <LogPanel taskId={task.id} taskName={task.name} state={task.state} source={SLURM_LOG} testIdPrefix="slurm" />
        </Col>
      </Row>
      {saving && <SaveTemplateModal task={task} source={template.data} onClose={() => setSaving(false)} />}
    </PageContainer>
  );
}

function describe(task: TaskDetail, template: SlurmTemplate | undefined): DescriptionsProps['items'] {
  const mono = (text: string) => (
    <Typography.Text style={{ fontFamily: MONO, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} copyable={text ? { text } : false}>
      {text || '—'}
    </Typography.Text>
  );
  const items: DescriptionsProps['items'] = [
    { key: 'jobId', label: '作业ID', children: <span data-testid="slurm-detail-job-id">{task.jobId ?? '—'}</span> },
    { key: 'center', label: '分中心', children: task.subCenterName || task.subCenterId },
    { key: 'resources', label: '资源', children: resourcesText(task) },
    { key: 'cardType', label: '卡型', children: task.cardTypeName || task.cardTypeId },
    { key: 'nodeNum', label: '节点数', children: task.nodeNum },
    {
      key: 'origin',
      label: '来源',
      children:
        task.type === 'template' ? (
          <span data-testid="slurm-detail-origin">
            模板{' '}
            {template ? (
              <Link to={`/slurm-task/task/template?templateId=${encodeURIComponent(template.id)}`} title="使用此模板再次提交">
                {template.name}
              </Link>
            ) : task.templateId ? (
              <Typography.Text type="secondary">（模板已删除或不可用）</Typography.Text>
            ) : null}
          </span>
        ) : (
          <span data-testid="slurm-detail-origin">自定义脚本</span>
        ),
    },
    { key: 'duration', label: '最长运行时长', children: formatMinutes(task.maxDurationMinutes) },
    { key: 'exitCode', label: '退出码', children: task.exitCode ?? '—' },
    { key: 'createTime', label: '创建时间', children: formatTime(task.createTime) },
    { key: 'startTime', label: '开始时间', children: formatTime(task.startTime) },
    { key: 'endTime', label: '结束时间', children: formatTime(task.endTime) },
  ];
  if (task.placementReason) items.push({ key: 'placement', label: '调度原因', children: task.placementReason });
  if (task.state === 'QUEUED') {
    items.push(
      { key: 'queueReason', label: '排队原因', children: <span data-testid="slurm-queue-reason">{task.reason || '等待资源'}</span> },
      { key: 'estimatedStart', label: '预计开始时间', children: task.estimatedStart ? formatTime(task.estimatedStart) : '暂无预计' },
    );
  } else if (task.reason) {
    items.push({ key: 'reason', label: '状态说明', children: <span data-testid="slurm-detail-reason">{task.reason}</span> });
  }
  items.push(
    { key: 'workDir', label: '工作目录', span: 'filled', children: mono(task.workDir) },
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
    { key: 'logPath', label: '日志文件', span: 'filled', children: mono(task.logPath) },
  );
  return items;
}
