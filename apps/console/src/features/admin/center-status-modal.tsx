import { CENTER_NOTICE_MAX, SUB_CENTER_STATUS_LABELS, type AdminCenter, type SubCenterStatus } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Form, Input, Modal, Radio, type ButtonProps } from 'antd';
import { useEffect } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { setCenterStatus } from './api';

const STATUSES: SubCenterStatus[] = ['online', 'maintenance', 'offline'];

interface FormValues {
  status: SubCenterStatus;
  notice: string;
  reason?: string;
}

/** 设置状态: 正常 / 维护 / 下线 with the notice users read (required unless 正常), and a reason for the audit log. */
export function CenterStatusModal({ center, onClose }: { center: AdminCenter | null; onClose: () => void }) {
  const client = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const status = Form.useWatch('status', form);
  useEffect(() => {
    if (center) form.setFieldsValue({ status: center.status, notice: center.notice, reason: '' });
  }, [center, form]);
  const save = useMutation({
    mutationFn: (v: FormValues) => setCenterStatus(center!.id, { status: v.status, notice: v.status === 'online' ? '' : v.notice.trim(), reason: v.reason?.trim() || undefined }),
    onSuccess: (c) => {
      toast.success(`${c.name}已设置为「${SUB_CENTER_STATUS_LABELS[c.status]}」`);
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      onClose();
    },
  });
  return (
    <Modal
      open={center !== null}
      title={center ? `设置状态：${center.name}` : '设置状态'}
      okText="保存"
      cancelText="取消"
      okButtonProps={{ loading: save.isPending, 'data-testid': 'center-status-save' } as ButtonProps}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(v) => save.mutate(v)} data-testid="center-status-form" requiredMark={false}>
        <Form.Item name="status" label="状态">
          <Radio.Group optionType="button" options={STATUSES.map((s) => ({ label: SUB_CENTER_STATUS_LABELS[s], value: s }))} data-testid="center-status-radio" />
        </Form.Item>
        {status && status !== 'online' ? (
          <>
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 16 }}
              title={`${SUB_CENTER_STATUS_LABELS[status]}期间，用户无法向该分中心提交任何任务，也无法购买它的算力卡；运行中的任务不受影响。用户会看到下面的公告。`}
            />
            <Form.Item
              name="notice"
              label="公告"
              rules={[{ required: true, whitespace: true, message: '请填写公告，用户提交任务或购买时会看到它' }]}
            >
              <Input.TextArea maxLength={CENTER_NOTICE_MAX} showCount autoSize={{ minRows: 2, maxRows: 4 }} placeholder="例如：11 月 30 日 02:00–06:00 存储扩容，暂停服务" data-testid="center-status-notice" />
            </Form.Item>
          </>
        ) : null}
        <Form.Item name="reason" label="原因（选填，记入审计日志）" style={{ marginBottom: 8 }}>
          <Input maxLength={200} data-testid="center-status-reason" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
