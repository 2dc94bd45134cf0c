import {
  ErrorCode,
  FoundationApi,
  TASK_MAX_DURATION_MINUTES,
  TASK_NAME_MAX,
  taskFolder,
  type CardType,
  type EnvVar,
  type SubCenter,
  type SubCenterDetail,
  type Task,
} from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Form, Input, InputNumber, Result, Row, Select, Space, Typography, type FormRule, type SelectProps } from 'antd';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { call, RequestError } from '../../app/request';
import { PageContainer } from '../ui/page-container';
import { PayerField } from './payer-field';
import { useSubmissionId } from './submission';
import type { TaskFamily } from './task-family';

/**
 * The fields every task form has (name, center, card type, cards, nodes, work directory, environment,
 * maximum run time), under the same names in each family's form, with testids `<family>-form-<field>`.
 */
export interface TaskFormValues {
  name: string;
  subCenterId?: string;
  cardTypeId?: string;
  cardNum: number;
  nodeNum: number;
  workDir: string;
  env: EnvVar[];
  duration: number;
  durationUnit: DurationUnit;
  /** 付费方: a team id, or '' for 个人 (PayerField). */
  payerTeamId?: string;
}

type DurationUnit = 'minute' | 'hour';
const UNIT_MINUTES: Record<DurationUnit, number> = { minute: 1, hour: 60 };

/** A maximum run time as the form shows it: whole hours in hours, otherwise minutes. */
export function durationOf(minutes: number): Pick<TaskFormValues, 'duration' | 'durationUnit'> {
  return minutes % 60 === 0 ? { duration: minutes / 60, durationUnit: 'hour' } : { duration: minutes, durationUnit: 'minute' };
}

/** What every family's create call takes from the shared fields (trimmed; no 工作目录 when empty: the task's own folder). */
export function taskPayload(v: TaskFormValues) {
  return {
    name: v.name.trim(),
    subCenterId: v.subCenterId!,
    cardTypeId: v.cardTypeId!,
    cardNum: v.cardNum,
    nodeNum: v.nodeNum,
    workDir: v.workDir?.trim() || undefined,
    env: (v.env ?? []).map((e) => ({ name: e.name.trim(), value: e.value ?? '' })),
    maxDurationMinutes: v.duration * UNIT_MINUTES[v.durationUnit],
    ...(v.payerTeamId ? { payerTeamId: v.payerTeamId } : {}),
  };
}

/** A name made from another (a copy's `-副本`, a run's date), cut so that it stays within TASK_NAME_MAX. */
export const nameWithSuffix = (name: string, suffix: string) => name.slice(0, TASK_NAME_MAX - suffix.length) + suffix;

/** Centers to choose from: online ones by name, the others disabled and saying why. */
export function centerOptions(centers: SubCenter[]) {
  return centers.map((c) => ({
    value: c.id,
    label: c.status === 'online' ? c.name : `${c.name}（${c.status === 'maintenance' ? '维护中' : '下线'}）`,
    disabled: c.status !== 'online',
  }));
}

/** A center's card type with its free cards: `NVIDIA A100 80G（空闲 3/8）`. */
export const cardTypeLabel = (t: CardType) => `${t.name}（空闲 ${t.available}/${t.total}）`;

/** A center's partitions (cards per node, nodes per card type), read once in a while: they change with the configuration. */
export const centerDetailQuery = (id: string) => ({
  queryKey: queryKeys.subCenterDetail(id),
  queryFn: () => call(FoundationApi.center, { params: { id } }, { silent: true }),
  staleTime: 5 * 60_000,
});

const LIMIT = 64;

/** Cards per node and nodes a card type allows: its largest partition among these centers', at most 64 (64 when none is known). */
export function partitionBounds(details: (SubCenterDetail | undefined)[], cardTypeId: string | undefined) {
  let cards = 0;
  let nodes = 0;
  for (const d of details) {
    for (const p of d?.partitions ?? []) {
      if (p.cardTypeId !== cardTypeId) continue;
      cards = Math.max(cards, p.cardsPerNode);
      nodes = Math.max(nodes, p.nodes);
    }
  }
  return { cards: Math.min(cards || LIMIT, LIMIT), nodes: Math.min(nodes || LIMIT, LIMIT) };
}

/**
 * Creating a task: 任务已提交, the family's queries refreshed, then the new task's detail page. Every
 * submission carries its id (`useSubmissionId`); pass `formChanged` to the form's `onValuesChange`, so a
 * changed form is a new submission while a retry of the same one is answered with the task it made.
 */
export function useCreateTask<B extends { clientRequestId?: string }>(family: TaskFamily, create: (body: B) => Promise<Task>) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const submission = useSubmissionId();
  const mutation = useMutation({
    mutationFn: (body: B) => create({ ...body, clientRequestId: submission.take() }),
    onSuccess: (task) => {
      submission.reset();
      toast.success('任务已提交');
      void queryClient.invalidateQueries({ queryKey: family.keys.root });
      navigate(family.detailPath(task));
    },
  });
  return { ...mutation, formChanged: submission.reset };
}

/** A form page for a task type the family does not have (a hand-typed URL). */
export function UnknownTaskType({ title, hint }: { title: string; hint: string }) {
  return (
    <PageContainer title={title}>
      <Card>
        <Result status="404" title="未知的任务类型" subTitle={hint} />
      </Card>
    </PageContainer>
  );
}

interface ResourceFieldsProps {
  family: TaskFamily;
  centers: { options: SelectProps['options']; loading: boolean };
  cardTypes: { options: SelectProps['options']; extra?: string; onChange?: () => void };
  /** The chosen card type's partition bounds (said below the fields once a card type is chosen). */
  bounds: { cards: number; nodes: number };
  cardTypeChosen: boolean;
  /** The chosen card type is CPU-only: its "cards" are cores, counted in 核 (as 资源概览 and 智能调度 do). */
  cores?: boolean;
  /** The fewest cards per node (0: CPU only, which `note` says). */
  cards: { min: number; note?: string };
  /** Whether the form asks for nodes (cards are then per node), and a rule of the family's own for them. */
  nodes?: boolean;
  nodesRule?: FormRule;
}

/** 任务名称, 算力分中心, 卡型, (每节点)卡数 and 节点数, two to a row from 768 px. */
export function ResourceFields({ family, centers, cardTypes, bounds, cardTypeChosen, cores, cards, nodes, nodesRule }: ResourceFieldsProps) {
  const id = (field: string) => `${family.testId}-form-${field}`;
  const cardsLabel = nodes ? '每节点卡数' : '卡数';
  const cardsExtra = [cards.note, cardTypeChosen && `最多 ${bounds.cards} ${cores ? '核' : '张'}`].filter(Boolean).join('；') || undefined;
  return (
    <Row gutter={16}>
      <Col xs={24} md={12}>
        <Form.Item label="任务名称" name="name" rules={[{ required: true, whitespace: true }, { max: TASK_NAME_MAX }]}>
          <Input placeholder="请输入任务名称" maxLength={TASK_NAME_MAX} showCount data-testid={id('name')} />
        </Form.Item>
      </Col>
      <Col xs={24} md={12}>
        <Form.Item label="算力分中心" name="subCenterId" rules={[{ required: true, message: '请选择算力分中心' }]}>
          <Select options={centers.options} placeholder="请选择算力分中心" allowClear={false} loading={centers.loading} data-testid={id('center')} />
        </Form.Item>
      </Col>
      <Col xs={24} md={12}>
        <Form.Item label="卡型" name="cardTypeId" rules={[{ required: true, message: '请选择卡型' }]} extra={cardTypes.extra}>
          <Select options={cardTypes.options} placeholder="请选择卡型" notFoundContent="该分中心暂无可用卡型" onChange={cardTypes.onChange} data-testid={id('card-type')} />
        </Form.Item>
      </Col>
      <Col xs={nodes ? 12 : 24} md={nodes ? 6 : 12}>
        <Form.Item
          label={cardsLabel}
          name="cardNum"
          rules={[{ required: true }, { type: 'integer', min: cards.min, max: bounds.cards, message: `${cardsLabel}须为 ${cards.min}-${bounds.cards} 的整数` }]}
          extra={cardsExtra}
        >
          <InputNumber min={cards.min} max={bounds.cards} precision={0} style={{ width: '100%' }} data-testid={id('card-num')} />
        </Form.Item>
      </Col>
      {nodes && (
        <Col xs={12} md={6}>
          <Form.Item
            label="节点数"
            name="nodeNum"
            dependencies={nodesRule ? ['cardNum'] : undefined}
            rules={[{ required: true }, { type: 'integer', min: 1, max: bounds.nodes, message: `节点数须为 1-${bounds.nodes} 的整数` }, ...(nodesRule ? [nodesRule] : [])]}
            extra={cardTypeChosen ? `最多 ${bounds.nodes} 个` : undefined}
          >
            <InputNumber min={1} max={bounds.nodes} precision={0} style={{ width: '100%' }} data-testid={id('node-num')} />
          </Form.Item>
        </Col>
      )}
      <Col xs={24} md={12}>
        <PayerField family={family} />
      </Col>
    </Row>
  );
}

/** The empty 工作目录's placeholder: what the task gets instead. */
export const TASK_FOLDER_HINT = '留空则新建本任务自己的目录 /tasks/<名称>-<编号>';

/** A copy's 工作目录: empty (a folder of its own again) when the old task ran in its own folder. */
export const copiedWorkDir = (task: { id: string; name: string; workDir: string }) => (task.workDir === taskFolder(task.name, task.id) ? '' : task.workDir);

/**
 * 工作目录, checked as the server does; the input is the family's folder picker of the chosen center (`/` is the
 * home). Left empty, the task gets a folder of its own (`taskFolder`: /tasks/<名称>-<编号>), which the
 * placeholder `TASK_FOLDER_HINT` says.
 */
export function WorkDirField({ extra, children }: { extra: string; children: ReactNode }) {
  return (
    <Form.Item label="工作目录" name="workDir" rules={[{ pattern: /^\//, message: '工作目录须以 / 开头（/ 表示个人目录）' }, { max: 1024 }]} extra={extra}>
      {children}
    </Form.Item>
  );
}

interface DurationFieldProps {
  family: TaskFamily;
  /** What gets stopped when the time is up: 任务, 作业. */
  subject: string;
  /** The last field of its card: no margin below it. */
  last?: boolean;
}

/** 最长运行时长: a whole number of minutes or hours, up to 7 days; its message in `<family>-form-duration-error`. */
export function DurationField({ family, subject, last }: DurationFieldProps) {
  const form = Form.useFormInstance();
  return (
    <>
      <Form.Item label="最长运行时长" required extra={`超过该时长${subject}将被停止（最长 7 天）。`} style={last ? { marginBottom: 0 } : undefined}>
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
                  if (!Number.isInteger(v) || v < 1) throw new Error('最长运行时长须为正整数');
                  if (v * UNIT_MINUTES[getFieldValue('durationUnit') as DurationUnit] > TASK_MAX_DURATION_MINUTES) throw new Error('最长运行时长不能超过 7 天');
                },
              }),
            ]}
          >
            <InputNumber min={1} precision={0} style={{ width: '60%' }} aria-label="最长运行时长" data-testid={`${family.testId}-form-duration`} />
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
            <Typography.Text
              type="danger"
              style={last ? { display: 'block', marginTop: 4 } : { display: 'block', marginTop: -16, marginBottom: 16 }}
              data-testid={`${family.testId}-form-duration-error`}
            >
              {errors[0]}
            </Typography.Text>
          ) : null;
        }}
      </Form.Item>
    </>
  );
}

/**
 * A submission refused for lack of compute power (2507): the server's words — center, card type, balance and
 * need — and the way to 购买算力 (`<family>-form-buy`). Nothing for any other error (the toast shows those).
 */
export function UnderpoweredNotice({ family, error }: { family: TaskFamily; error: unknown }) {
  if (!(error instanceof RequestError) || error.code !== ErrorCode.COMP_POWER_INSUFFICIENT) return null;
  return (
    <Alert
      type="warning"
      showIcon
      style={{ marginBottom: 16 }}
      title={error.message}
      action={
        <Link to="/pay" data-testid={`${family.testId}-form-buy`}>
          购买算力
        </Link>
      }
      data-testid={`${family.testId}-form-underpowered`}
    />
  );
}

/** The submit button (`<family>-form-submit`, 提交中 while it runs) and 取消; above them, a refusal for lack of compute power. */
export function TaskFormActions({ family, pending, label, onCancel, error }: { family: TaskFamily; pending: boolean; label: string; onCancel: () => void; error?: unknown }) {
  return (
    <>
      <UnderpoweredNotice family={family} error={error} />
      <Space wrap>
      <Button type="primary" htmlType="submit" loading={pending} data-testid={`${family.testId}-form-submit`}>
        {pending ? '提交中' : label}
      </Button>
      <Button onClick={onCancel}>取消</Button>
      </Space>
    </>
  );
}
