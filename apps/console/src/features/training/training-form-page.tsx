import { ArrowLeftOutlined, ThunderboltOutlined } from '@ant-design/icons';
import {
  AUTO_PLACEMENT,
  DEVELOP_JUPYTER_COMMAND,
  TASK_COMMAND_MAX,
  TASK_DEFAULT_DURATION_MINUTES,
  TASK_MAX_DURATION_MINUTES,
  TASK_NAME_MAX,
  type CardType,
  type EnvVar,
  type ImageItem,
  type SubCenter,
  type TaskDetail,
  type TaskMountInput,
  type TrainingTaskCreate,
  type TrainingType,
} from '@suanli/contracts';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Form, Input, InputNumber, Result, Row, Select, Skeleton, Space, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { MountPicker } from '../asset/mount-picker';
import { useSubCenters } from '../storage/hooks';
import { createTask, getSubCenterDetail, listImages, previewPlacement } from './api';
import { EnvList } from './components/env-list';
import { FolderInput } from '../storage/components/folder-input';
import { isTrainingType, TRAINING, TYPE_INFO } from './task-view';

type DurationUnit = 'minute' | 'hour';

interface FormValues {
  name: string;
  subCenterId: string;
  cardTypeId?: string;
  cardNum: number;
  nodeNum: number;
  imageId?: string;
  command: string;
  workDir: string;
  env: EnvVar[];
  datasets?: TaskMountInput[];
  models?: TaskMountInput[];
  duration: number;
  durationUnit: DurationUnit;
}

const UNIT_MINUTES: Record<DurationUnit, number> = { minute: 1, hour: 60 };
const CARDS_MAX = 64;
const NODES_MAX = 64;
const COMMAND_PLACEHOLDER: Record<TrainingType, string> = {
  train: '例如：python train.py --epochs 10',
  develop: '默认启动 Jupyter Notebook；自定义 IDE 请监听 $SUANLI_IDE_PORT，路径前缀为 $SUANLI_PROXY_BASE，并校验 $SUANLI_IDE_TOKEN',
  distributed: '例如：torchrun --nnodes=$WORLD_SIZE --node_rank=$NODE_RANK train.py',
};

const DEFAULTS: Partial<FormValues> = {
  subCenterId: AUTO_PLACEMENT,
  cardNum: 1,
  nodeNum: 1,
  workDir: '/',
  env: [],
  duration: TASK_DEFAULT_DURATION_MINUTES,
  durationUnit: 'minute',
};

/** The value after it stopped changing for `ms` (the placement preview waits for typing to pause). */
function useSettled<T>(value: T, ms = 400): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
    // The serialized value is the dependency: a new object with the same content must not restart the wait.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, ms]);
  return settled;
}

/** Card types on offer: the chosen center's, or every online center's (by id, first name wins) for 智能调度. */
function cardTypesOf(centers: SubCenter[], centerId: string | undefined): CardType[] {
  if (centerId && centerId !== AUTO_PLACEMENT) return centers.find((c) => c.id === centerId)?.cardTypes ?? [];
  const byId = new Map<string, CardType>();
  for (const c of centers) if (c.status === 'online') for (const t of c.cardTypes) if (!byId.has(t.id)) byId.set(t.id, t);
  return [...byId.values()];
}

function durationOf(minutes: number): { duration: number; durationUnit: DurationUnit } {
  return minutes % 60 === 0 ? { duration: minutes / 60, durationUnit: 'hour' } : { duration: minutes, durationUnit: 'minute' };
}

/** 复制并重新提交: the old task's parameters under a new name; 智能调度 again when it was placed that way. */
function valuesFrom(task: TaskDetail): Partial<FormValues> {
  const suffix = '-副本';
  return {
    name: task.name.slice(0, TASK_NAME_MAX - suffix.length) + suffix,
    subCenterId: task.placementReason ? AUTO_PLACEMENT : task.subCenterId,
    cardTypeId: task.cardTypeId,
    cardNum: task.cardNum,
    nodeNum: task.nodeNum,
    imageId: task.imageId,
    command: task.command,
    workDir: task.workDir || '/',
    env: task.env,
    datasets: task.mounts.filter((m) => m.kind === 'dataset').map(({ kind, assetId, versionId }) => ({ kind, assetId, versionId })),
    models: task.mounts.filter((m) => m.kind === 'model').map(({ kind, assetId, versionId }) => ({ kind, assetId, versionId })),
    ...durationOf(task.maxDurationMinutes),
  };
}

export function TrainingTaskPage() {
  const { type } = useParams();
  if (!isTrainingType(type)) {
    return (
      <PageContainer title="创建训练任务">
        <Card>
          <Result status="404" title="未知的任务类型" subTitle="请从训练任务列表中选择要创建的任务类型。" />
        </Card>
      </PageContainer>
    );
  }
  return <TrainingForm key={type} type={type} />;
}

function TrainingForm({ type }: { type: TrainingType }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [search] = useSearchParams();
  const fromId = search.get('from');
  const [form] = Form.useForm<FormValues>();
  const distributed = type === 'distributed';
  // 用于训练 (a dataset or model page): `?dataset=<assetId>:<versionId>` / `?model=…` preselects the mount.
  const preset = useMemo(() => {
    const pick = (kind: 'dataset' | 'model') => {
      const [assetId, versionId] = (search.get(kind) ?? '').split(':');
      return assetId && versionId ? [{ kind, assetId, versionId }] : [];
    };
    return { datasets: pick('dataset'), models: pick('model') };
  }, [search]);

  const centersQuery = useSubCenters();
  const centers = useMemo(() => centersQuery.data ?? [], [centersQuery.data]);
  const details = useQueries({
    queries: centers.map((c) => ({ queryKey: queryKeys.subCenterDetail(c.id), queryFn: () => getSubCenterDetail(c.id), staleTime: 5 * 60_000 })),
  });

  const subCenterId = Form.useWatch('subCenterId', form) ?? AUTO_PLACEMENT;
  const cardTypeId = Form.useWatch('cardTypeId', form);
  const cardNum = Form.useWatch('cardNum', form);
  const nodeNum = Form.useWatch('nodeNum', form);
  const workDir = Form.useWatch('workDir', form);
  const auto = subCenterId === AUTO_PLACEMENT;

  const cardTypes = useMemo(() => cardTypesOf(centers, subCenterId), [centers, subCenterId]);

  // Cards per node and nodes: the chosen center's partition for the card type, or the largest among centers.
  const bounds = useMemo(() => {
    let cards = 0;
    let nodes = 0;
    details.forEach((d) => {
      if (!d.data || (!auto && d.data.id !== subCenterId) || (auto && d.data.status !== 'online')) return;
      for (const p of d.data.partitions) {
        if (p.cardTypeId !== cardTypeId) continue;
        cards = Math.max(cards, p.cardsPerNode);
        nodes = Math.max(nodes, p.nodes);
      }
    });
    return { cards: Math.min(cards || CARDS_MAX, CARDS_MAX), nodes: Math.min(nodes || NODES_MAX, NODES_MAX) };
  }, [details, auto, subCenterId, cardTypeId]);

  // 复制并重新提交: fill the form once from the old task.
  const source = useQuery({ queryKey: queryKeys.training.detail(fromId ?? ''), queryFn: () => TRAINING.calls.get(fromId!), enabled: Boolean(fromId) });
  const filled = useRef(false);
  useEffect(() => {
    if (!source.data || filled.current) return;
    filled.current = true;
    form.setFieldsValue(valuesFrom(source.data));
  }, [source.data, form]);

  // A card type the newly chosen center does not offer is cleared (and with it the image).
  useEffect(() => {
    if (!centers.length || !cardTypeId) return;
    if (!cardTypes.some((t) => t.id === cardTypeId)) form.setFieldsValue({ cardTypeId: undefined, imageId: undefined });
  }, [cardTypes, cardTypeId, centers.length, form]);

  const images = useQuery({
    queryKey: queryKeys.images(cardTypeId),
    queryFn: () => listImages({ cardTypeId }),
    enabled: Boolean(cardTypeId),
    staleTime: 5 * 60_000,
  });
  // An image that does not run on the new card type's vendor is cleared.
  useEffect(() => {
    const imageId = form.getFieldValue('imageId') as string | undefined;
    if (images.data && imageId && !images.data.some((i) => i.id === imageId)) form.setFieldsValue({ imageId: undefined });
  }, [images.data, form]);

  // 智能调度 preview: where the server would place the task now, and why.
  const placementQuery = useSettled(
    auto && cardTypeId && Number.isInteger(cardNum) && cardNum >= 1
      ? { cardTypeId, cardNum, nodeNum: distributed && Number.isInteger(nodeNum) && nodeNum >= 1 ? nodeNum : 1, ...(workDir?.startsWith('/') ? { workDir } : {}) }
      : null,
  );
  const placement = useQuery({
    queryKey: queryKeys.training.placement(placementQuery ?? {}),
    queryFn: () => previewPlacement(placementQuery!),
    enabled: Boolean(placementQuery),
  });

  // Whose storage the work-directory picker lists.
  const storageCenter = useMemo(() => {
    const id = auto ? placement.data?.subCenterId : subCenterId;
    return centers.find((c) => c.id === id) ?? centers.find((c) => c.status === 'online') ?? centers[0];
  }, [auto, placement.data, subCenterId, centers]);

  const submit = useMutation({
    mutationFn: (body: TrainingTaskCreate) => createTask(body),
    onSuccess: (task) => {
      toast.success('任务已提交');
      void queryClient.invalidateQueries({ queryKey: queryKeys.training.root });
      navigate(`/training/detail/${type}/${encodeURIComponent(task.id)}`);
    },
  });

  const onFinish = (v: FormValues) => {
    if (auto && placement.isFetching && !placement.data) {
      toast.warning('智能调度正在选择分中心，请稍候再提交');
      return;
    }
    submit.mutate({
      name: v.name.trim(),
      type,
      subCenterId: v.subCenterId,
      cardTypeId: v.cardTypeId!,
      cardNum: v.cardNum,
      nodeNum: distributed ? v.nodeNum : 1,
      imageId: v.imageId!,
      command: v.command,
      workDir: v.workDir.trim() || '/',
      env: (v.env ?? []).map((e) => ({ name: e.name.trim(), value: e.value ?? '' })),
      maxDurationMinutes: v.duration * UNIT_MINUTES[v.durationUnit],
      mounts: [...(v.datasets ?? []), ...(v.models ?? [])],
    });
  };

  const info = TYPE_INFO[type];
  const centerOptions = [
    { value: AUTO_PLACEMENT, label: '智能调度' },
    ...centers.map((c) => ({
      value: c.id,
      label: c.status === 'online' ? c.name : `${c.name}（${c.status === 'maintenance' ? '维护中' : '离线'}）`,
      disabled: c.status !== 'online',
    })),
  ];
  const cardOptions = cardTypes.map((t) => ({ value: t.id, label: auto ? t.name : `${t.name}（空闲 ${t.available}/${t.total}）` }));

  if (fromId && source.isLoading) {
    return (
      <PageContainer title={`创建${info.label}任务`}>
        <Card>
          <Skeleton active paragraph={{ rows: 8 }} />
        </Card>
      </PageContainer>
    );
  }

  return (
    <PageContainer
      title={fromId ? `复制${info.label}任务` : `创建${info.label}任务`}
      description={info.description}
      extra={
        <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(info.path)}>
          返回列表
        </Button>
      }
    >
      <Card>
        <Form<FormValues>
          form={form}
          layout="vertical"
          // Distributed starts at 2 nodes: one node would not be distributed (nodes × cards ≥ 2).
          initialValues={{ ...(distributed ? { ...DEFAULTS, nodeNum: 2 } : type === 'develop' ? { ...DEFAULTS, command: DEVELOP_JUPYTER_COMMAND } : DEFAULTS), ...preset }}
          onFinish={onFinish}
          scrollToFirstError
          style={{ maxWidth: 960 }}
          data-testid="training-form"
        >
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <Form.Item label="任务名称" name="name" rules={[{ required: true, whitespace: true }, { max: TASK_NAME_MAX }]}>
                <Input placeholder="请输入任务名称" maxLength={TASK_NAME_MAX} showCount data-testid="training-form-name" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label="算力分中心" name="subCenterId" rules={[{ required: true, message: '请选择算力分中心' }]}>
                <Select options={centerOptions} allowClear={false} loading={centersQuery.isLoading} data-testid="training-form-center" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label="卡型" name="cardTypeId" rules={[{ required: true, message: '请选择卡型' }]}>
                <Select
                  options={cardOptions}
                  placeholder="请选择卡型"
                  notFoundContent="该分中心暂无可用卡型"
                  onChange={() => form.setFieldsValue({ imageId: undefined })}
                  data-testid="training-form-card-type"
                />
              </Form.Item>
            </Col>
            <Col xs={distributed ? 12 : 24} md={distributed ? 6 : 12}>
              <Form.Item
                label={distributed ? '每节点卡数' : '卡数'}
                name="cardNum"
                rules={[{ required: true }, { type: 'integer', min: 1, max: bounds.cards, message: `${distributed ? '每节点卡数' : '卡数'}须为 1-${bounds.cards} 的整数` }]}
                extra={cardTypeId ? `最多 ${bounds.cards} 张` : undefined}
              >
                <InputNumber min={1} max={bounds.cards} precision={0} style={{ width: '100%' }} data-testid="training-form-card-num" />
              </Form.Item>
            </Col>
            {distributed && (
              <Col xs={12} md={6}>
                <Form.Item
                  label="节点数"
                  name="nodeNum"
                  dependencies={['cardNum']}
                  rules={[
                    { required: true },
                    { type: 'integer', min: 1, max: bounds.nodes, message: `节点数须为 1-${bounds.nodes} 的整数` },
                    ({ getFieldValue }) => ({
                      validator: async (_r, v: number | null) => {
                        if (v && Number(getFieldValue('cardNum')) * v < 2) throw new Error('分布式训练至少需要 2 个工作进程（节点数 × 每节点卡数 ≥ 2）');
                      },
                    }),
                  ]}
                  extra={cardTypeId ? `最多 ${bounds.nodes} 个` : undefined}
                >
                  <InputNumber min={1} max={bounds.nodes} precision={0} style={{ width: '100%' }} data-testid="training-form-node-num" />
                </Form.Item>
              </Col>
            )}
          </Row>

          {auto && <PlacementNotice loading={placement.isFetching} ready={Boolean(placementQuery)} data={placement.data} error={placement.error} />}

          <Form.Item label="镜像" name="imageId" rules={[{ required: true, message: '请选择镜像' }]}>
            <Select
              placeholder={cardTypeId ? '请选择镜像' : '请先选择卡型'}
              disabled={!cardTypeId}
              loading={images.isFetching}
              notFoundContent="该卡型暂无可用镜像"
              options={imageOptions(images.data ?? [])}
              data-testid="training-form-image"
            />
          </Form.Item>
          <Form.Item label="启动命令" name="command" rules={[{ required: true, whitespace: true }, { max: TASK_COMMAND_MAX }]}>
            <Input.TextArea
              autoSize={{ minRows: 3, maxRows: 12 }}
              placeholder={COMMAND_PLACEHOLDER[type]}
              style={{ fontFamily: MONO }}
              data-testid="training-form-command"
            />
          </Form.Item>
          <Form.Item
            label="工作目录"
            name="workDir"
            rules={[
              { required: true },
              { pattern: /^\//, message: '工作目录须以 / 开头（/ 表示个人目录）' },
              { max: 1024 },
            ]}
            extra="任务在此目录下启动；/ 表示您在该分中心的个人目录。"
          >
            <FolderInput center={storageCenter} />
          </Form.Item>
          <Form.Item label="数据集" name="datasets" extra="只读挂载；任务中按选择顺序以 $SUANLI_DATASET_1、$SUANLI_DATASET_2… 给出其目录。">
            <MountPicker kind="dataset" centerId={auto ? undefined : subCenterId} />
          </Form.Item>
          <Form.Item label="模型" name="models" extra="只读挂载；目录在 $SUANLI_MODEL_1、$SUANLI_MODEL_2…">
            <MountPicker kind="model" centerId={auto ? undefined : subCenterId} />
          </Form.Item>
          <Form.Item label="环境变量">
            <EnvList />
          </Form.Item>
          <Form.Item label="最长运行时长" required extra="超过该时长任务将被停止（最长 7 天）。">
            <Space.Compact style={{ width: '100%', maxWidth: 320 }}>
              <Form.Item
                name="duration"
                noStyle
                dependencies={['durationUnit']}
                rules={[
                  { required: true, message: '请输入最长运行时长' },
                  ({ getFieldValue }) => ({
                    validator: async (_r, v: number | null) => {
                      if (v == null) return;
                      const minutes = v * UNIT_MINUTES[getFieldValue('durationUnit') as DurationUnit];
                      if (!Number.isInteger(v) || v < 1) throw new Error('最长运行时长须为正整数');
                      if (minutes > TASK_MAX_DURATION_MINUTES) throw new Error('最长运行时长不能超过 7 天');
                    },
                  }),
                ]}
              >
                <InputNumber min={1} precision={0} style={{ width: '60%' }} aria-label="最长运行时长" data-testid="training-form-duration" />
              </Form.Item>
              <Form.Item name="durationUnit" noStyle>
                <Select
                  style={{ width: '40%' }}
                  allowClear={false}
                  options={[
                    { value: 'minute', label: '分钟' },
                    { value: 'hour', label: '小时' },
                  ]}
                  aria-label="时长单位"
                />
              </Form.Item>
            </Space.Compact>
          </Form.Item>
          {/* The duration's message (noStyle items show none of their own). */}
          <Form.Item noStyle shouldUpdate>
            {() => {
              const errors = form.getFieldError('duration');
              return errors.length ? (
                <Typography.Text type="danger" style={{ display: 'block', marginTop: -16, marginBottom: 16 }} data-testid="training-form-duration-error">
                  {errors[0]}
                </Typography.Text>
              ) : null;
            }}
          </Form.Item>
          <Space wrap>
            <Button type="primary" htmlType="submit" loading={submit.isPending} data-testid="training-form-submit">
              {submit.isPending ? '提交中' : '提交任务'}
            </Button>
            <Button onClick={() => navigate(info.path)}>取消</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}

function PlacementNotice({ loading, ready, data, error }: { loading: boolean; ready: boolean; data?: { subCenterName: string; reason: string }; error: Error | null }) {
  if (!ready) {
    return <Alert type="info" showIcon icon={<ThunderboltOutlined />} style={{ marginBottom: 24 }} title="智能调度" description="选择卡型和卡数后，平台将为您选择最合适的算力分中心，并在提交前说明原因。" />;
  }
  if (error && !data) {
    return <Alert type="error" showIcon style={{ marginBottom: 24 }} title="智能调度无法选择分中心" description={error.message} data-testid="training-placement" />;
  }
  if (!data) return <Alert type="info" showIcon style={{ marginBottom: 24 }} title="智能调度正在选择分中心…" data-testid="training-placement" />;
  return (
    <Alert
      type="success"
      showIcon
      icon={<ThunderboltOutlined />}
      style={{ marginBottom: 24, opacity: loading ? 0.6 : 1 }}
      title={
        <span>
          智能调度将提交到：<strong data-testid="training-placement-center">{data.subCenterName}</strong>
        </span>
      }
      description={<span data-testid="training-placement-reason">{data.reason}</span>}
      data-testid="training-placement"
    />
  );
}

/**
 * The picker's options: the public catalogue, and — in their own group, so they read as the caller's own —
 * their private images from the platform registry (any card type; they declare no vendor).
 */
type ImageOption = { value: string; label: string; title: string };
function imageOptions(images: ImageItem[]): (ImageOption | { label: string; options: ImageOption[] })[] {
  const option = (i: ImageItem): ImageOption => ({ value: i.id, label: i.name, title: i.description });
  const own = images.filter((i) => i.visibility === 'private');
  if (!own.length) return images.map(option);
  return [
    { label: '公共镜像', options: images.filter((i) => i.visibility !== 'private').map(option) },
    { label: '我的私有镜像', options: own.map(option) },
  ];
}
