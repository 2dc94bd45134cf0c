import { ArrowLeftOutlined, ThunderboltOutlined } from '@ant-design/icons';
import {
  AUTO_PLACEMENT,
  DEVELOP_JUPYTER_COMMAND,
  TASK_COMMAND_MAX,
  TASK_DEFAULT_DURATION_MINUTES,
  type CardType,
  type ImageItem,
  type SubCenter,
  type DiagnosisChange,
  type TaskDetail,
  type TaskMountInput,
  type TrainingType,
} from '@suanli/contracts';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Select, Skeleton } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { CostEstimate } from '../../shared/task/cost-estimate';
import { PERSONAL_PAYER } from '../../shared/task/payer-field';
import { EnvList } from '../../shared/task/env-list';
import { cardTypeLabel, centerDetailQuery, centerOptions, DurationField, durationOf, nameWithSuffix, partitionBounds, ResourceFields, TaskFormActions, TASK_FOLDER_HINT, taskPayload, copiedWorkDir, UnknownTaskType, useCreateTask, WorkDirField, type TaskFormValues } from '../../shared/task/task-form';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { MountPicker } from '../asset/mount-picker';
import { FolderInput } from '../storage/components/folder-input';
import { useSubCenters } from '../storage/hooks';
import { createTask, listImages, previewPlacement } from './api';
import { isTrainingType, TRAINING, TYPE_INFO } from './task-view';

interface FormValues extends TaskFormValues {
  imageId?: string;
  command: string;
  datasets?: TaskMountInput[];
  models?: TaskMountInput[];
}

const COMMAND_PLACEHOLDER: Record<TrainingType, string> = {
  train: '例如：python train.py --epochs 10',
  develop: '默认启动 Jupyter Notebook；自定义 IDE 请监听 $SUANLI_IDE_HOST 的 $SUANLI_IDE_PORT 端口（路径从 / 开始），并校验 $SUANLI_IDE_TOKEN（令牌经环境变量传入，请勿写在命令行参数中）',
  distributed: '例如：torchrun --nnodes=$WORLD_SIZE --node_rank=$NODE_RANK train.py',
};

const DEFAULTS: Partial<FormValues> = {
  subCenterId: AUTO_PLACEMENT,
  cardNum: 1,
  nodeNum: 1,
  workDir: '',
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

/**
 * 复制并重新提交: the old task's parameters under a new name; 智能调度 again when it was placed that way; the
 * same 付费方 (as the API's 重新提交 keeps it — the gate asks again at submission).
 */
function valuesFrom(task: TaskDetail): Partial<FormValues> {
  return {
    name: nameWithSuffix(task.name, '-副本'),
    subCenterId: task.placementReason ? AUTO_PLACEMENT : task.subCenterId,
    cardTypeId: task.cardTypeId,
    cardNum: task.cardNum,
    nodeNum: task.nodeNum,
    imageId: task.imageId,
    command: task.command,
    workDir: copiedWorkDir(task),
    env: task.env,
    datasets: task.mounts.filter((m) => m.kind === 'dataset').map(({ kind, assetId, versionId }) => ({ kind, assetId, versionId })),
    models: task.mounts.filter((m) => m.kind === 'model').map(({ kind, assetId, versionId }) => ({ kind, assetId, versionId })),
    ...durationOf(task.maxDurationMinutes),
    payerTeamId: task.payerTeamId ?? PERSONAL_PAYER,
  };
}

/** 按建议重新提交 (issue 23): `&change=<DiagnosisChange JSON>` over the copied values (a longer limit, other cards). */
function suggested(raw: string | null): Partial<FormValues> {
  if (!raw) return {};
  try {
    const c = JSON.parse(raw) as DiagnosisChange;
    return {
      ...(typeof c.maxDurationMinutes === 'number' ? durationOf(c.maxDurationMinutes) : {}),
      ...(typeof c.cardNum === 'number' ? { cardNum: c.cardNum } : {}),
    };
  } catch {
    return {};
  }
}

export function TrainingTaskPage() {
  const { type } = useParams();
  if (!isTrainingType(type)) return <UnknownTaskType title="创建训练任务" hint="请从训练任务列表中选择要创建的任务类型。" />;
  return <TrainingForm key={type} type={type} />;
}

function TrainingForm({ type }: { type: TrainingType }) {
  const navigate = useNavigate();
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
    queries: centers.map((c) => centerDetailQuery(c.id)),
  });

  const subCenterId = Form.useWatch('subCenterId', form) ?? AUTO_PLACEMENT;
  const cardTypeId = Form.useWatch('cardTypeId', form);
  const cardNum = Form.useWatch('cardNum', form);
  const nodeNum = Form.useWatch('nodeNum', form);
  const workDir = Form.useWatch('workDir', form);
  const auto = subCenterId === AUTO_PLACEMENT;

  const cardTypes = useMemo(() => cardTypesOf(centers, subCenterId), [centers, subCenterId]);

  // Cards per node and nodes: the chosen center's partition for the card type, or the largest among online centers.
  const bounds = useMemo(
    () => partitionBounds(details.map((d) => d.data).filter((d) => d && (auto ? d.status === 'online' : d.id === subCenterId)), cardTypeId),
    [details, auto, subCenterId, cardTypeId],
  );

  // 复制并重新提交: fill the form once from the old task.
  const source = useQuery({ queryKey: queryKeys.training.detail(fromId ?? ''), queryFn: () => TRAINING.calls.get(fromId!), enabled: Boolean(fromId) });
  const filled = useRef(false);
  useEffect(() => {
    if (!source.data || filled.current) return;
    filled.current = true;
    form.setFieldsValue({ ...valuesFrom(source.data), ...suggested(search.get('change')) });
  }, [source.data, form, search]);

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

  const submit = useCreateTask(TRAINING, createTask);

  const onFinish = (v: FormValues) => {
    if (auto && placement.isFetching && !placement.data) {
      toast.warning('智能调度正在选择分中心，请稍候再提交');
      return;
    }
    submit.mutate({
      ...taskPayload(v),
      type,
      nodeNum: distributed ? v.nodeNum : 1,
      imageId: v.imageId!,
      command: v.command,
      mounts: [...(v.datasets ?? []), ...(v.models ?? [])],
      // The task the form was filled from: the new task's detail links it as 原任务.
      ...(source.data ? { resubmittedFrom: source.data.id } : {}),
    });
  };

  const info = TYPE_INFO[type];

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
          // A changed form is a new submission (a new clientRequestId); a retry of the same one keeps its id.
          onValuesChange={submit.formChanged}
          scrollToFirstError
          style={{ maxWidth: 960 }}
          data-testid="training-form"
        >
          <ResourceFields
            family={TRAINING}
            centers={{ options: [{ value: AUTO_PLACEMENT, label: '智能调度' }, ...centerOptions(centers)], loading: centersQuery.isLoading }}
            // 智能调度 shows the card types of every online center: their free cards are each center's own.
            cardTypes={{ options: cardTypes.map((t) => ({ value: t.id, label: auto ? t.name : cardTypeLabel(t) })), onChange: () => form.setFieldsValue({ imageId: undefined }) }}
            bounds={bounds}
            cardTypeChosen={Boolean(cardTypeId)}
            cores={cardTypes.find((t) => t.id === cardTypeId)?.memoryGB === 0}
            cards={{ min: 1 }}
            nodes={distributed}
            nodesRule={({ getFieldValue }) => ({
              validator: async (_r, v: number | null) => {
                if (v && Number(getFieldValue('cardNum')) * v < 2) throw new Error('分布式训练至少需要 2 个工作进程（节点数 × 每节点卡数 ≥ 2）');
              },
            })}
          />

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
          <WorkDirField extra="任务在此目录下启动；留空时平台为本任务新建一个目录，日志和输出都在其中；/ 表示您在该分中心的个人目录。">
            <FolderInput center={storageCenter} testId="training-form-workdir" placeholder={TASK_FOLDER_HINT} />
          </WorkDirField>
          <Form.Item label="数据集" name="datasets" extra="只读挂载；任务中按选择顺序以 $SUANLI_DATASET_1、$SUANLI_DATASET_2… 给出其目录。">
            <MountPicker kind="dataset" centerId={auto ? undefined : subCenterId} />
          </Form.Item>
          <Form.Item label="模型" name="models" extra="只读挂载；目录在 $SUANLI_MODEL_1、$SUANLI_MODEL_2…">
            <MountPicker kind="model" centerId={auto ? undefined : subCenterId} />
          </Form.Item>
          <Form.Item label="环境变量">
            <EnvList testIdPrefix="training-form" />
          </Form.Item>
          <DurationField family={TRAINING} subject="任务" />
          <CostEstimate family={TRAINING} centers={centers} centerId={auto ? placement.data?.subCenterId : subCenterId} nodeNum={distributed ? undefined : 1} style={{ marginBottom: 24 }} />
          <TaskFormActions family={TRAINING} pending={submit.isPending} error={submit.error} label="提交任务" onCancel={() => navigate(info.path)} />
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
