import { TASK_NAME_MAX, type SlurmTemplate, type SlurmTemplateFromTask, type Task } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { AutoComplete, Form, Input, Modal } from 'antd';
import { toast } from '../../../app/feedback';
import { queryKeys } from '../../../app/query-keys';
import { TEMPLATE_CATEGORIES } from '../../slurm-template/template-view';
import { saveSlurmTaskAsTemplate } from '../api';

/** Every field of 另存为模板 is on the form (the server defaults only what a client leaves out). */
type Values = Required<SlurmTemplateFromTask>;

/**
 * 另存为模板: a template of the user's with the task's resources. A task from a template that still exists
 * keeps that template's script and parameters, the task's values becoming the defaults; otherwise the
 * script as it ran (server rule, `POST /tasks/{id}/save-as-template`). Empty fields are left to the server
 * (the source template's category).
 */
export function SaveTemplateModal({ task, source, onClose }: { task: Task; source?: SlurmTemplate; onClose: () => void }) {
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (body: SlurmTemplateFromTask) => saveSlurmTaskAsTemplate(task.id, body),
    onSuccess: (t) => {
      toast.success(`已另存为模板「${t.name}」，可在任务模板中查看`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.slurmTemplate.root });
      onClose();
    },
  });
  return (
    <Modal
      open
      title="另存为模板"
      okText="保存"
      cancelText="取消"
      confirmLoading={save.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'slurm-save-template-ok' } as Record<`data-${string}`, string>}
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ name: task.name, description: '', category: source?.category ?? '' }}
        onFinish={(v) => {
          const description = (v.description ?? '').trim();
          const category = (v.category ?? '').trim();
          save.mutate({ name: v.name.trim(), ...(description ? { description } : {}), ...(category ? { category } : {}) });
        }}
        data-testid="slurm-save-template-form"
      >
        <Form.Item label="模板名称" name="name" rules={[{ required: true, whitespace: true }, { max: TASK_NAME_MAX }]}>
          <Input maxLength={TASK_NAME_MAX} showCount data-testid="slurm-save-template-name" />
        </Form.Item>
        <Form.Item label="应用类别" name="category" rules={[{ max: 32 }]}>
          <AutoComplete options={TEMPLATE_CATEGORIES.map((c) => ({ value: c }))} placeholder="例如 通用计算" allowClear />
        </Form.Item>
        <Form.Item
          label="模板描述"
          name="description"
          rules={[{ max: 1024 }]}
          extra={
            source
              ? `新模板沿用「${source.name}」的脚本与参数，本任务填写的参数值作为默认值，资源取本任务的设置。`
              : '新模板保存本任务运行的脚本与资源（不含参数），之后可在任务模板中编辑。'
          }
        >
          <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} maxLength={1024} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
