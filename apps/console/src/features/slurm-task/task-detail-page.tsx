import { SaveOutlined } from '@ant-design/icons';
import type { DiagnosisChange, SlurmTemplate, TaskDetail } from '@suanli/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Collapse, Typography, type DescriptionsProps } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { DiagnosisCard, EfficiencyCard } from '../../shared/task/diagnosis-card';
import { newSubmissionId } from '../../shared/task/submission';
import { ResubmitTask, useTaskActions } from '../../shared/task/task-actions';
import { TaskDetailFrame, TaskFactsCard, taskFacts, TaskProgress, useTaskDetail } from '../../shared/task/task-detail';
import { centerDetailQuery } from '../../shared/task/task-form';
import { MONO } from '../../shared/ui/mono';
import { getTemplate } from '../slurm-template/api';
import { resourcesText } from '../slurm-template/template-view';
import { SaveTemplateModal } from './components/save-template-modal';
import { LIST_PATH, SLURM, templateFormPath } from './task-view';

/**
 * 作业详情 (/slurm-task/detail/:type/:id) on the task kit, with what only Slurm tasks have: 重新提交 and
 * 另存为模板, the origin and resources among the facts, the parameter values under the template's labels
 * (when it still exists) and the script as it was submitted.
 */
export function SlurmTaskDetailPage() {
  const { id = '' } = useParams();
  const detail = useTaskDetail(SLURM, id);
  const actions = useTaskActions(SLURM);
  const templateId = detail.data?.templateId;
  const template = useQuery({
    queryKey: queryKeys.slurmTemplate.detail(templateId ?? ''),
    queryFn: () => getTemplate(templateId!, { silent: true }),
    enabled: Boolean(templateId),
    retry: false,
    staleTime: 60_000,
  });
  const [saving, setSaving] = useState(false);
  const subCenterId = detail.data?.subCenterId;
  const center = useQuery({ ...centerDetailQuery(subCenterId ?? ''), enabled: Boolean(subCenterId) });
  // 按建议重新提交: at once, as 重新提交 does, with the diagnosis's change (one submission id per page: a retry
  // after a lost answer is answered with the task it made).
  const navigate = useNavigate();
  const [requestId] = useState(newSubmissionId);
  const applyChange = useMutation({
    mutationFn: (change: DiagnosisChange) => SLURM.calls.resubmit(id, requestId, change),
    onSuccess: (t) => {
      toast.success(`已按建议重新提交，生成了新的任务（原任务：${detail.data?.name ?? id}）`);
      void navigate(SLURM.detailPath(t));
    },
  });

  return (
    <TaskDetailFrame
      detail={detail}
      actions={actions}
      title="作业详情"
      listPath={LIST_PATH}
      trail={(t) => (
        <>
          <ResubmitTask task={t} actions={actions} place="header" />
          <Button icon={<SaveOutlined />} onClick={() => setSaving(true)} data-testid="slurm-detail-save-template">
            另存为模板
          </Button>
        </>
      )}
    >
      {(t) => (
        <>
          {center.data?.schedulerKind === 'local' && (
            // Issue 22 item 7: a job id like local-12 is not Slurm's; say why, as the form does.
            <Alert
              type="info"
              showIcon
              data-testid="slurm-detail-local"
              title={`${t.subCenterName}未接入 Slurm 调度系统，本作业由平台直接在本机运行（作业号 ${t.jobId ?? '—'}）`}
              description="脚本中的 SLURM_JOB_ID、SLURM_NTASKS、SLURM_CPUS_ON_NODE 等变量由平台设置；分区、服务质量等调度选项不生效。"
            />
          )}
          <DiagnosisCard task={t} family={SLURM} apply={(c) => applyChange.mutate(c)} applying={applyChange.isPending} canApply={() => true} />
          <TaskFactsCard items={describe(t, template.data)} testId="slurm-detail-info" />
          <EfficiencyCard task={t} family={SLURM} />
          <ParamValues task={t} template={template.data} />
          <Collapse
            data-testid="slurm-detail-script-panel"
            items={[
              {
                key: 'script',
                label: t.type === 'template' ? '作业脚本（由模板生成）' : '作业脚本',
                extra: (
                  <span onClick={(e) => e.stopPropagation()}>
                    <Typography.Text copyable={{ text: t.command, tooltips: ['复制脚本', '已复制'] }} />
                  </span>
                ),
                children: (
                  <pre
                    data-testid="slurm-detail-script"
                    style={{ margin: 0, fontFamily: MONO, fontSize: 12, lineHeight: 1.6, whiteSpace: 'pre', overflowX: 'auto', maxHeight: 480 }}
                  >
                    {t.command}
                  </pre>
                ),
              },
            ]}
          />
          <TaskProgress task={t} family={SLURM} />
          {saving && <SaveTemplateModal task={t} source={template.data} onClose={() => setSaving(false)} />}
        </>
      )}
    </TaskDetailFrame>
  );
}

/** 参数: the values the task ran with, labelled as its template labels them (paths and text in monospace). */
function ParamValues({ task, template }: { task: TaskDetail; template: SlurmTemplate | undefined }) {
  const entries = Object.entries(task.params ?? {});
  if (!entries.length) return null;
  return (
    <TaskFactsCard
      title="参数"
      testId="slurm-detail-params"
      items={entries.map(([name, value]) => {
        const p = template?.params.find((x) => x.name === name);
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
  );
}

function describe(task: TaskDetail, template: SlurmTemplate | undefined): DescriptionsProps['items'] {
  const f = taskFacts(task, SLURM);
  return [
    f.jobId,
    f.center,
    { key: 'resources', label: '资源', children: resourcesText(task) },
    f.cardType,
    f.nodeNum,
    {
      key: 'origin',
      label: '来源',
      children:
        task.type === 'template' ? (
          <span data-testid="slurm-detail-origin">
            模板{' '}
            {template ? (
              <Link to={templateFormPath(template.id)} title="使用此模板再次提交">
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
    ...f.original,
    f.duration,
    f.exitCode,
    ...f.times,
    ...(task.placementReason ? [{ key: 'placement', label: '调度原因', children: task.placementReason }] : []),
    ...f.state,
    f.workDir,
    f.env,
    f.logPath,
  ];
}
