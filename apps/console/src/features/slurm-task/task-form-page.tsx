import { ArrowLeftOutlined } from '@ant-design/icons';
import { TASK_DEFAULT_DURATION_MINUTES, TEMPLATE_SCRIPT_MAX, type CardType, type SlurmTaskType, type SlurmTemplate } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Collapse, Form, Segmented, Select, Typography } from 'antd';
import { useEffect, useMemo, useRef } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { dayjs } from '../../shared/dayjs';
import { CostEstimate } from '../../shared/task/cost-estimate';
import { EnvList } from '../../shared/task/env-list';
import { cardTypeLabel, centerDetailQuery, centerOptions, DurationField, durationOf, nameWithSuffix, partitionBounds, ResourceFields, TaskFormActions, TASK_FOLDER_HINT, taskPayload, UnknownTaskType, useCreateTask, WorkDirField, type TaskFormValues } from '../../shared/task/task-form';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { getTemplate } from '../slurm-template/api';
import { ParamFields, paramDefaults, paramPayload, type ParamValues } from '../slurm-template/components/param-fields';
import { ScriptInput } from '../slurm-template/components/script-input';
import { SOURCE_LABELS, STARTER_CUSTOM_SCRIPT } from '../slurm-template/template-view';
import { FolderInput } from '../storage/components/folder-input';
import { useSubCenters } from '../storage/hooks';
import { createSlurmTask } from './api';
import { useTemplateChoices } from './hooks';
import { formPath, isSlurmType, LIST_PATH, SLURM, SLURM_TYPE_LABELS } from './task-view';

interface FormValues extends TaskFormValues {
  templateId?: string;
  params?: ParamValues;
  script?: string;
}

/** A task name from the template's: `<template>-MMDD-HHmm`, within the limit. */
function nameFor(template: SlurmTemplate): string {
  return nameWithSuffix(template.name, `-${dayjs().format('MMDD-HHmm')}`);
}

/** A CPU partition's card type: no accelerator memory (`CPU 通用型`). */
const isCpuType = (t: CardType) => t.memoryGB === 0;

/** The template's card type when the center offers it; for a CPU-only run the center's CPU type; else the first. */
function preferredCardType(cardTypes: CardType[], suggested: string | undefined, cpuOnly: boolean): CardType | undefined {
  return cardTypes.find((t) => t.id === suggested) ?? (cpuOnly ? cardTypes.find(isCpuType) : cardTypes.find((t) => !isCpuType(t))) ?? cardTypes[0];
}

/** 提交作业 (/slurm-task/task/template, /slurm-task/task/custom). */
export function SlurmTaskFormPage() {
  const { type } = useParams();
  if (!isSlurmType(type)) return <UnknownTaskType title="提交作业" hint="请选择从模板创建或自定义脚本。" />;
  return <SlurmTaskForm key={type} type={type} />;
}

function SlurmTaskForm({ type }: { type: SlurmTaskType }) {
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const [form] = Form.useForm<FormValues>();
  const fromTemplate = type === 'template';

  const centersQuery = useSubCenters();
  const centers = useMemo(() => centersQuery.data ?? [], [centersQuery.data]);
  const subCenterId = Form.useWatch('subCenterId', form);
  const cardTypeId = Form.useWatch('cardTypeId', form);
  const center = centers.find((c) => c.id === subCenterId);
  const cardTypes = useMemo(() => center?.cardTypes ?? [], [center]);

  // The center's partition for the card type bounds cards per node and nodes.
  const detail = useQuery({ ...centerDetailQuery(subCenterId ?? ''), enabled: Boolean(subCenterId) });
  const bounds = useMemo(() => partitionBounds([detail.data], cardTypeId), [detail.data, cardTypeId]);

  // The first online center until the user picks one.
  useEffect(() => {
    if (!centers.length || form.getFieldValue('subCenterId')) return;
    const first = centers.find((c) => c.status === 'online') ?? centers[0];
    form.setFieldsValue({ subCenterId: first.id });
  }, [centers, form]);

  // A card type the center does not offer is replaced (the template's suggestion, the CPU type for 0 cards, else the first).
  const templateId = Form.useWatch('templateId', form);
  const template = useQuery({
    queryKey: queryKeys.slurmTemplate.detail(templateId ?? ''),
    queryFn: () => getTemplate(templateId!),
    enabled: fromTemplate && Boolean(templateId),
  });
  useEffect(() => {
    // The form's own value, not the watched one: the watch can lag a render behind a pick the user just made,
    // and this effect would then replace the user's choice.
    const current = form.getFieldValue('cardTypeId');
    if (!cardTypes.length || cardTypes.some((t) => t.id === current)) return;
    const cpuOnly = Number(form.getFieldValue('cardNum')) === 0;
    form.setFieldsValue({ cardTypeId: preferredCardType(cardTypes, template.data?.defaults.cardTypeId, cpuOnly)?.id });
  }, [cardTypes, cardTypeId, template.data, form]);

  // ?templateId=… chooses the template (使用此模板 on the template list).
  const requested = search.get('templateId');
  useEffect(() => {
    if (fromTemplate && requested && !form.getFieldValue('templateId')) form.setFieldsValue({ templateId: requested });
  }, [fromTemplate, requested, form]);

  // A newly loaded template fills its parameters' defaults and its suggested resources, once per template.
  const applied = useRef<string | null>(null);
  useEffect(() => {
    const t = template.data;
    if (!t || applied.current === t.id) return;
    applied.current = t.id;
    form.setFieldValue('params', paramDefaults(t.params));
    const pick = preferredCardType(cardTypes, t.defaults.cardTypeId, t.defaults.cardNum === 0);
    form.setFieldsValue({
      cardNum: t.defaults.cardNum,
      nodeNum: t.defaults.nodeNum,
      ...durationOf(t.defaults.maxDurationMinutes),
      ...(pick ? { cardTypeId: pick.id } : {}),
      ...(!(form.getFieldValue('name') as string | undefined)?.trim() ? { name: nameFor(t) } : {}),
    });
  }, [template.data, cardTypes, form]);

  const choices = useTemplateChoices();
  const templateOptions = (['platform', 'user'] as const)
    .map((source) => ({
      label: `${SOURCE_LABELS[source]}模板`,
      options: choices.list.filter((t) => t.source === source).map((t) => ({ value: t.id, label: t.category ? `${t.name}（${t.category}）` : t.name })),
    }))
    .filter((g) => g.options.length);
  // A template outside the first page (or just created) is still shown by name.
  if (template.data && !choices.byId.has(template.data.id)) templateOptions.push({ label: '已选模板', options: [{ value: template.data.id, label: template.data.name }] });

  const submit = useCreateTask(SLURM, createSlurmTask);

  const onFinish = (v: FormValues) => {
    const common = { ...taskPayload(v), type };
    if (fromTemplate) {
      if (!template.data) {
        toast.warning('模板尚未加载完成，请稍候再提交');
        return;
      }
      submit.mutate({ ...common, templateId: template.data.id, params: paramPayload(template.data.params, v.params) });
    } else {
      submit.mutate({ ...common, script: v.script ?? '' });
    }
  };

  return (
    <PageContainer
      title={`提交作业 · ${SLURM_TYPE_LABELS[type]}`}
      description={fromTemplate ? '选择任务模板并填写参数，平台据此生成 sbatch 脚本并提交到所选分中心。' : '编写 sbatch 脚本，提交到所选分中心的 Slurm 集群。'}
      extra={
        <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(LIST_PATH)}>
          返回列表
        </Button>
      }
    >
      <div style={{ overflowX: 'auto', maxWidth: '100%' }}>
        <Segmented<SlurmTaskType>
          value={type}
          onChange={(t) => navigate(formPath(t))}
          options={(Object.keys(SLURM_TYPE_LABELS) as SlurmTaskType[]).map((t) => ({ value: t, label: <span data-testid={`slurm-form-tab-${t}`}>{SLURM_TYPE_LABELS[t]}</span> }))}
        />
      </div>
      <Form<FormValues>
        form={form}
        layout="vertical"
        initialValues={{
          cardNum: 0,
          nodeNum: 1,
          workDir: '',
          env: [],
          ...durationOf(TASK_DEFAULT_DURATION_MINUTES),
          ...(fromTemplate ? {} : { script: STARTER_CUSTOM_SCRIPT }),
        }}
        onFinish={onFinish}
        // A changed form is a new submission (a new clientRequestId); a retry of the same one keeps its id.
        onValuesChange={submit.formChanged}
        scrollToFirstError
        data-testid="slurm-form"
        style={{ display: 'flex', flexDirection: 'column', gap: 16, maxWidth: 1100 }}
      >
        {fromTemplate ? (
          <Card title="任务模板">
            <Form.Item label="模板" name="templateId" rules={[{ required: true, message: '请选择任务模板' }]}>
              <Select
                showSearch={{ optionFilterProp: 'label' }}
                placeholder="请选择任务模板"
                loading={choices.isLoading}
                options={templateOptions}
                notFoundContent="暂无可用模板"
                onChange={(id: string) => {
                  const next = new URLSearchParams(search);
                  if (id) next.set('templateId', id);
                  else next.delete('templateId');
                  setSearch(next, { replace: true });
                }}
                data-testid="slurm-form-template"
              />
            </Form.Item>
            {template.isError && <Alert type="error" showIcon title="模板读取失败" description={template.error.message} style={{ marginBottom: 16 }} />}
            {template.data && (
              <>
                {template.data.description && (
                  <Typography.Paragraph type="secondary" style={{ overflowWrap: 'anywhere' }} data-testid="slurm-form-template-description">
                    {template.data.description}
                  </Typography.Paragraph>
                )}
                {template.data.params.length ? (
                  <ParamFields params={template.data.params} center={center} />
                ) : (
                  <Typography.Paragraph type="secondary">该模板没有参数。</Typography.Paragraph>
                )}
                <Collapse
                  size="small"
                  items={[
                    {
                      key: 'script',
                      label: '查看模板脚本',
                      children: (
                        <pre style={{ margin: 0, fontFamily: MONO, fontSize: 12, whiteSpace: 'pre', overflowX: 'auto', maxHeight: 360 }} data-testid="slurm-form-template-script">
                          {template.data.script}
                        </pre>
                      ),
                    },
                  ]}
                />
              </>
            )}
          </Card>
        ) : (
          <Card title="作业脚本">
            <Form.Item
              label="sbatch 脚本"
              name="script"
              validateFirst
              rules={[{ required: true, whitespace: true }, { max: TEMPLATE_SCRIPT_MAX }, { pattern: /^#!/, message: '脚本第一行必须以 #! 开头（如 #!/bin/bash）' }]}
              extra="以 #!/bin/bash 开头；分区、卡数、节点数、时长、作业名、输出文件与工作目录由下方表单决定。"
              style={{ marginBottom: 0 }}
            >
              <ScriptInput data-testid="slurm-form-script" />
            </Form.Item>
          </Card>
        )}

        <Card title="资源与运行">
          <ResourceFields
            family={SLURM}
            centers={{ options: centerOptions(centers), loading: centersQuery.isLoading }}
            cardTypes={{ options: cardTypes.map((t) => ({ value: t.id, label: cardTypeLabel(t) })), extra: '决定作业提交到的分区' }}
            bounds={bounds}
            cardTypeChosen={Boolean(cardTypeId)}
            cores={cardTypes.some((t) => t.id === cardTypeId && isCpuType(t))}
            cards={{ min: 0, note: '0 表示仅用 CPU' }}
            nodes
          />
          {detail.data?.schedulerKind === 'local' && (
            // Issue 22 item 7: the embedded default has no Slurm; say so instead of job ids that look wrong.
            <Alert
              type="info"
              showIcon
              data-testid="slurm-form-local"
              title={`${center?.name ?? '该分中心'}未接入 Slurm 调度系统，作业由平台直接在本机运行（作业号形如 local-12）`}
              description="脚本可照常读取 SLURM_JOB_ID、SLURM_NTASKS、SLURM_CPUS_ON_NODE 等变量；#SBATCH 中的任务数和 CPU 数会生效，分区、服务质量等调度选项不生效。"
              style={{ marginBottom: 16 }}
            />
          )}
          <WorkDirField extra="作业在此目录下运行，输出文件也写在这里；留空时平台为本作业新建一个目录；/ 表示您在该分中心的个人目录。">
            <FolderInput center={center} testId="slurm-form-workdir" placeholder={TASK_FOLDER_HINT} />
          </WorkDirField>
          <Form.Item label="环境变量">
            <EnvList testIdPrefix="slurm-form" />
          </Form.Item>
          <DurationField family={SLURM} subject="作业" last />
          <CostEstimate family={SLURM} centers={centers} centerId={subCenterId} style={{ marginTop: 16 }} />
        </Card>

        <TaskFormActions family={SLURM} pending={submit.isPending} error={submit.error} label="提交作业" onCancel={() => navigate(LIST_PATH)} />
      </Form>
    </PageContainer>
  );
}
