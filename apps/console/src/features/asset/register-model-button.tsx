import { ExperimentOutlined } from '@ant-design/icons';
import type { ModelFromTask, Task } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Form, Input, Modal, Radio, Select } from 'antd';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { assetCalls } from './api';

type Values = { target: 'new' | 'existing'; name?: string; modelId?: string; path: string; framework?: string; note?: string };

/**
 * 登记为模型 on a training task that ran to success: its output folder (default: the task's working
 * directory) becomes a version of a new model or of one of the user's models, linked back to the task.
 */
export function RegisterModelButton({ task }: { task: Pick<Task, 'id' | 'name' | 'workDir'> }) {
  const calls = useMemo(() => assetCalls('model'), []);
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<Values>();
  const target = Form.useWatch('target', form);
  const navigate = useNavigate();
  const client = useQueryClient();
  const query = { scope: 'own', pageNum: 1, pageSize: 100 } as const;
  const models = useQuery({ queryKey: queryKeys.asset.list('model', query), queryFn: () => calls.page(query), enabled: open && target === 'existing' });
  const register = useMutation({
    mutationFn: (body: ModelFromTask) => calls.registerFromTask(body),
    onSuccess: (m) => {
      toast.success('已登记为模型，正在生成版本');
      void client.invalidateQueries({ queryKey: queryKeys.asset.root('model') });
      navigate(`/model/detail/${m.id}`);
    },
  });
  const finish = (v: Values) =>
    register.mutate({
      taskId: task.id,
      path: v.path,
      note: v.note,
      ...(v.target === 'existing' ? { modelId: v.modelId } : { name: v.name, framework: v.framework }),
    });
  return (
    <>
      <Button icon={<ExperimentOutlined />} onClick={() => (form.resetFields(), setOpen(true))} data-testid="training-register-model">
        登记为模型
      </Button>
      <Modal
        title="登记为模型"
        open={open}
        onCancel={() => setOpen(false)}
        onOk={() => form.submit()}
        okText="登记"
        cancelText="取消"
        confirmLoading={register.isPending}
        okButtonProps={{ 'data-testid': 'register-model-ok' } as Record<`data-${string}`, string>}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" onFinish={finish} initialValues={{ target: 'new', name: task.name, path: task.workDir }}>
          <Form.Item name="target" label="登记到">
            <Radio.Group
              options={[
                { value: 'new', label: '新模型' },
                { value: 'existing', label: '已有模型的新版本' },
              ]}
            />
          </Form.Item>
          {target === 'existing' ? (
            <Form.Item name="modelId" label="模型" rules={[{ required: true, message: '请选择模型' }]}>
              <Select loading={models.isLoading} placeholder="选择我的模型" options={(models.data?.list ?? []).map((m) => ({ value: m.id, label: m.name }))} />
            </Form.Item>
          ) : (
            <>
              <Form.Item name="name" label="模型名称" rules={[{ required: true, whitespace: true, message: '请输入模型名称' }, { max: 64, message: '名称最多 64 个字符' }]}>
                <Input data-testid="register-model-name" />
              </Form.Item>
              <Form.Item name="framework" label="框架">
                <Input placeholder="例如：PyTorch" maxLength={32} />
              </Form.Item>
            </>
          )}
          <Form.Item name="path" label="输出文件夹" extra="训练结果所在的文件夹（该任务所在分中心的存储中），将生成不可变的模型版本。" rules={[{ required: true, message: '请输入文件夹路径' }]}>
            <Input data-testid="register-model-path" maxLength={4096} />
          </Form.Item>
          <Form.Item name="note" label="版本说明">
            <Input maxLength={200} placeholder="例如：第 10 轮，top1=0.76" />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
