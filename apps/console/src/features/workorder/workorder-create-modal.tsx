import { WORKORDER_ATTACHMENTS_MAX, WORKORDER_CONTENT_MAX, WORKORDER_TITLE_MAX, type WorkOrderCreate, type WorkOrderType } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form, Input, Modal, Select, Typography, type UploadFile } from 'antd';
import { useNavigate } from 'react-router';
import { useDict } from '../../app/dicts';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { createWorkOrder, recentTasks } from './api';
import { detailPath, ScreenshotField, uploadedIds, uploading } from './workorder-view';

interface CreateValues {
  type?: WorkOrderType;
  title?: string;
  description?: string;
  taskId?: string;
  files?: UploadFile[];
}

const FAMILY: Record<string, string> = { training: '训练任务', slurm: '科学计算' };

/** What a page that links here already knows: the problem's type and the task it is about. */
export type WorkOrderStart = Pick<CreateValues, 'type' | 'taskId'>;

/** 新建工单: type, title, description, an optional task of the caller's, screenshots; opens the new work order. */
export function WorkOrderCreateModal({ open, onClose, initial }: { open: boolean; onClose: () => void; initial?: WorkOrderStart }) {
  const [form] = Form.useForm<CreateValues>();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const types = useDict('workorder_types');
  const tasks = useQuery({ queryKey: queryKeys.workorder.tasks, queryFn: recentTasks, enabled: open });
  const files = Form.useWatch('files', form);

  const create = useMutation({
    mutationFn: (body: WorkOrderCreate) => createWorkOrder(body),
    onSuccess: (order) => {
      toast.success('工单已提交');
      queryClient.setQueryData(queryKeys.workorder.detail(order.id), order);
      void queryClient.invalidateQueries({ queryKey: queryKeys.workorder.listRoot });
      onClose();
      navigate(detailPath(order.id));
    },
  });

  const submit = (v: CreateValues) => {
    const body: WorkOrderCreate = { type: v.type!, title: v.title!.trim(), description: v.description!.trim() };
    if (v.taskId) body.taskId = v.taskId;
    const ids = uploadedIds(v.files);
    if (ids) body.attachmentIds = ids;
    create.mutate(body);
  };

  return (
    <Modal
      open={open}
      title="新建工单"
      okText="提交工单"
      cancelText="取消"
      width={640}
      onOk={() => form.submit()}
      onCancel={onClose}
      okButtonProps={{ loading: create.isPending, disabled: uploading(files), ...{ 'data-testid': 'wo-create-submit' } }}
      destroyOnHidden
    >
      <Form<CreateValues> form={form} layout="vertical" initialValues={initial} onFinish={submit} requiredMark preserve={false} data-testid="wo-create-form">
        <Form.Item name="type" label="问题类型" rules={[{ required: true, message: '请选择问题类型' }]}>
          <Select placeholder="请选择问题类型" options={types.options} loading={types.isLoading} virtual={false} data-testid="wo-type" />
        </Form.Item>
        <Form.Item
          name="title"
          label="标题"
          rules={[
            { required: true, whitespace: true, message: '请输入标题' },
            { max: WORKORDER_TITLE_MAX, message: `标题不能超过 ${WORKORDER_TITLE_MAX} 个字符` },
          ]}
        >
          <Input placeholder="一句话概括您遇到的问题" maxLength={WORKORDER_TITLE_MAX} showCount data-testid="wo-title" />
        </Form.Item>
        <Form.Item
          name="description"
          label="问题描述"
          rules={[
            { required: true, whitespace: true, message: '请描述您遇到的问题' },
            { max: WORKORDER_CONTENT_MAX, message: `问题描述不能超过 ${WORKORDER_CONTENT_MAX} 个字符` },
          ]}
        >
          <Input.TextArea
            placeholder="请写明问题现象、出现时间、操作步骤和报错信息，便于运维人员尽快定位"
            autoSize={{ minRows: 5, maxRows: 12 }}
            maxLength={WORKORDER_CONTENT_MAX}
            showCount
            data-testid="wo-description"
          />
        </Form.Item>
        <Form.Item name="taskId" label="关联任务" extra="选填：问题与某个任务有关时选择它，运维人员可直接查看。">
          <Select
            allowClear
            showSearch
            optionFilterProp="label"
            placeholder="不关联任务"
            loading={tasks.isLoading}
            notFoundContent={tasks.isLoading ? '加载中…' : '没有任务'}
            options={(tasks.data ?? []).map((t) => ({ value: t.id, label: `${t.name}（${FAMILY[t.kind] ?? '任务'}）` }))}
            // Not virtual: the virtual list writes the raw values into hidden accessible options.
            virtual={false}
            data-testid="wo-task"
          />
        </Form.Item>
        <Form.Item
          name="files"
          label="截图"
          valuePropName="value"
          extra={
            <Typography.Text type="secondary">
              选填：最多 {WORKORDER_ATTACHMENTS_MAX} 张，支持 PNG、JPG、WEBP，每张不超过 5 MB
            </Typography.Text>
          }
        >
          <ScreenshotField testId="wo-create-shots" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
