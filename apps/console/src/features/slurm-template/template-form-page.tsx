import { ArrowLeftOutlined } from '@ant-design/icons';
import {
  TASK_DEFAULT_DURATION_MINUTES,
  TASK_MAX_DURATION_MINUTES,
  TASK_NAME_MAX,
  TEMPLATE_SCRIPT_MAX,
  type CardType,
  type SlurmTemplate,
  type SlurmTemplateSave,
} from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AutoComplete, Button, Card, Col, Form, Input, InputNumber, Result, Row, Select, Skeleton, Space, Typography } from 'antd';
import { useEffect, useMemo, useRef } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { nameWithSuffix } from '../../shared/task/task-form';
import { PageContainer } from '../../shared/ui/page-container';
import { useSubCenters } from '../storage/hooks';
import { createTemplate, getTemplate, updateTemplate } from './api';
import { ScriptInput } from './components/script-input';
import { ParamsEditor, toDraft, toTemplateParam, type ParamDraft } from './components/params-editor';
import { placeholders, STARTER_PARAMS, STARTER_TEMPLATE_SCRIPT, TEMPLATE_CATEGORIES } from './template-view';

interface FormValues {
  name: string;
  description: string;
  category: string;
  script: string;
  params: ParamDraft[];
  cardTypeId?: string | null;
  cardNum: number;
  nodeNum: number;
  maxDurationMinutes: number;
}

const NEW_TEMPLATE: FormValues = {
  name: '',
  description: '',
  category: '',
  script: STARTER_TEMPLATE_SCRIPT,
  params: STARTER_PARAMS.map(toDraft),
  cardTypeId: undefined,
  cardNum: 0,
  nodeNum: 1,
  maxDurationMinutes: TASK_DEFAULT_DURATION_MINUTES,
};

function valuesOf(t: SlurmTemplate, copy: boolean): FormValues {
  return {
    name: copy ? nameWithSuffix(t.name, '-副本') : t.name,
    description: t.description,
    category: t.category,
    script: t.script,
    params: t.params.map(toDraft),
    cardTypeId: t.defaults.cardTypeId,
    cardNum: t.defaults.cardNum,
    nodeNum: t.defaults.nodeNum,
    maxDurationMinutes: t.defaults.maxDurationMinutes,
  };
}

function toSave(v: FormValues): SlurmTemplateSave {
  return {
    name: v.name.trim(),
    description: (v.description ?? '').trim(),
    category: (v.category ?? '').trim(),
    script: v.script,
    params: (v.params ?? []).map(toTemplateParam),
    defaults: {
      ...(v.cardTypeId ? { cardTypeId: v.cardTypeId } : {}),
      cardNum: v.cardNum,
      nodeNum: v.nodeNum,
      maxDurationMinutes: v.maxDurationMinutes,
    },
  };
}

/**
 * 新建 / 编辑任务模板 (/slurm-template/form, /slurm-template/form/:id; `?from=<id>` copies a template, a
 * platform one included, as a new template of the user's).
 */
export function SlurmTemplateFormPage() {
  const { id } = useParams();
  const [search] = useSearchParams();
  const fromId = search.get('from');
  return <TemplateForm key={`${id ?? ''}:${fromId ?? ''}`} id={id} fromId={id ? null : fromId} />;
}

function TemplateForm({ id, fromId }: { id?: string; fromId: string | null }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const sourceId = id ?? fromId;
  const source = useQuery({ queryKey: queryKeys.slurmTemplate.detail(sourceId ?? ''), queryFn: () => getTemplate(sourceId!), enabled: Boolean(sourceId) });
  const centers = useSubCenters();

  const filled = useRef(false);
  useEffect(() => {
    if (!source.data || filled.current) return;
    filled.current = true;
    form.setFieldsValue(valuesOf(source.data, !id));
  }, [source.data, form, id]);

  // Card types any center offers (a template does not belong to one center).
  const cardTypes = useMemo(() => {
    const byId = new Map<string, CardType>();
    for (const c of centers.data ?? []) for (const t of c.cardTypes) if (!byId.has(t.id)) byId.set(t.id, t);
    return [...byId.values()];
  }, [centers.data]);

  const script = Form.useWatch('script', form) ?? '';
  const params = (Form.useWatch('params', form) as ParamDraft[] | undefined) ?? [];
  const used = placeholders(script);
  const unused = params.map((p) => p?.name).filter((n) => n && !used.includes(n));

  const save = useMutation({
    mutationFn: (body: SlurmTemplateSave) => (id ? updateTemplate(id, body) : createTemplate(body)),
    onSuccess: (t) => {
      toast.success(id ? '模板已保存' : '模板已创建');
      queryClient.setQueryData(queryKeys.slurmTemplate.detail(t.id), t);
      void queryClient.invalidateQueries({ queryKey: queryKeys.slurmTemplate.root });
      navigate('/slurm-template');
    },
  });

  const title = id ? '编辑任务模板' : fromId ? '复制任务模板' : '新建任务模板';
  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate('/slurm-template')}>
      返回列表
    </Button>
  );

  if (sourceId && source.isLoading) {
    return (
      <PageContainer title={title}>
        <Card>
          <Skeleton active paragraph={{ rows: 10 }} />
        </Card>
      </PageContainer>
    );
  }
  if (sourceId && !source.data) {
    return (
      <PageContainer title={title} extra={back}>
        <Card>
          <Result status="warning" title="模板不存在或无法读取" subTitle={source.error?.message} />
        </Card>
      </PageContainer>
    );
  }
  if (id && source.data?.source === 'platform') {
    return (
      <PageContainer title={title} extra={back}>
        <Card>
          <Result
            status="info"
            title="平台模板为只读"
            subTitle="可以复制为我的模板后再修改。"
            extra={
              <Button type="primary" onClick={() => navigate(`/slurm-template/form?from=${encodeURIComponent(id)}`, { replace: true })}>
                复制为我的模板
              </Button>
            }
          />
        </Card>
      </PageContainer>
    );
  }

  return (
    <PageContainer title={title} description="模板是带参数的 sbatch 脚本：脚本中的 {{参数名}} 在提交任务时替换为用户填写的值。" extra={back}>
      <Form<FormValues>
        form={form}
        layout="vertical"
        initialValues={NEW_TEMPLATE}
        onFinish={(v) => save.mutate(toSave(v))}
        // Declaring a parameter can settle the script's 未在参数中声明 message: check the script again then.
        onValuesChange={(changed: Partial<FormValues>) => {
          if ('params' in changed && form.getFieldError('script').length) form.validateFields(['script']).catch(() => {});
        }}
        scrollToFirstError
        data-testid="tpl-form"
        style={{ display: 'flex', flexDirection: 'column', gap: 16, maxWidth: 1100 }}
      >
        <Card title="基本信息">
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <Form.Item label="模板名称" name="name" rules={[{ required: true, whitespace: true }, { max: TASK_NAME_MAX }]}>
                <Input placeholder="请输入模板名称" maxLength={TASK_NAME_MAX} showCount data-testid="tpl-form-name" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label="应用类别" name="category" rules={[{ max: 32 }]}>
                <AutoComplete
                  options={TEMPLATE_CATEGORIES.map((c) => ({ value: c }))}
                  placeholder="例如 分子动力学"
                  allowClear
                  filterOption={(input, option) => String(option?.value ?? '').includes(input)}
                  data-testid="tpl-form-category"
                />
              </Form.Item>
            </Col>
          </Row>
          <Form.Item label="模板描述" name="description" rules={[{ max: 1024 }]} style={{ marginBottom: 0 }}>
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} maxLength={1024} showCount placeholder="说明模板的用途、所需软件与结果位置" data-testid="tpl-form-description" />
          </Form.Item>
        </Card>

        <Card title="作业脚本">
          <Form.Item
            label="sbatch 脚本"
            name="script"
            dependencies={['params']}
            validateFirst
            rules={[
              { required: true },
              { max: TEMPLATE_SCRIPT_MAX, message: `sbatch 脚本最多${TEMPLATE_SCRIPT_MAX}个字符` },
              { pattern: /^#!/, message: '脚本第一行必须以 #! 开头（如 #!/bin/bash）' },
              ({ getFieldValue }) => ({
                validator: async (_r, v: string | undefined) => {
                  const declared = ((getFieldValue('params') as Partial<ParamDraft>[] | undefined) ?? []).map((p) => p?.name);
                  const missing = placeholders(v ?? '').filter((n) => !declared.includes(n));
                  if (missing.length) throw new Error(`脚本中的 ${missing.map((n) => `{{${n}}}`).join('、')} 未在参数中声明`);
                },
              }),
            ]}
            extra={
              <span data-testid="tpl-form-placeholders">
                {used.length ? `脚本引用的参数：${used.map((n) => `{{${n}}}`).join('、')}` : '脚本未引用参数'}
                {unused.length ? `；未被脚本引用的参数：${unused.join('、')}` : ''}
              </span>
            }
          >
            <ScriptInput data-testid="tpl-form-script" />
          </Form.Item>
        </Card>

        <Card title="参数">
          <ParamsEditor />
        </Card>

        <Card title="默认资源" extra={<Typography.Text type="secondary">提交任务时作为初始值，可修改</Typography.Text>}>
          <Row gutter={16}>
            <Col xs={24} md={6}>
              <Form.Item label="卡型" name="cardTypeId">
                <Select
                  allowClear
                  placeholder="不指定"
                  loading={centers.isLoading}
                  options={cardTypes.map((t) => ({ value: t.id, label: t.name }))}
                  data-testid="tpl-form-card-type"
                />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item label="每节点卡数" name="cardNum" rules={[{ required: true }, { type: 'integer', min: 0, max: 64, message: '每节点卡数须为 0-64 的整数' }]} extra="0 表示仅使用 CPU">
                <InputNumber min={0} max={64} precision={0} style={{ width: '100%' }} data-testid="tpl-form-card-num" />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item label="节点数" name="nodeNum" rules={[{ required: true }, { type: 'integer', min: 1, max: 64, message: '节点数须为 1-64 的整数' }]}>
                <InputNumber min={1} max={64} precision={0} style={{ width: '100%' }} data-testid="tpl-form-node-num" />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item
                label="最长运行时长（分钟）"
                name="maxDurationMinutes"
                rules={[{ required: true }, { type: 'integer', min: 1, max: TASK_MAX_DURATION_MINUTES, message: `最长运行时长须为 1-${TASK_MAX_DURATION_MINUTES} 分钟` }]}
              >
                <InputNumber min={1} max={TASK_MAX_DURATION_MINUTES} precision={0} style={{ width: '100%' }} data-testid="tpl-form-duration" />
              </Form.Item>
            </Col>
          </Row>
        </Card>

        <Space wrap>
          <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="tpl-form-submit">
            {id ? '保存模板' : '创建模板'}
          </Button>
          <Button onClick={() => navigate('/slurm-template')}>取消</Button>
        </Space>
      </Form>
    </PageContainer>
  );
}
