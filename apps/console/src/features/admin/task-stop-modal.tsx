import type { AdminUserTask } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Modal, Typography, type ButtonProps } from 'antd';
import { useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { ReasonField } from './reason-field';
import { stopUserTask } from './api';

export const TASK_KIND_LABELS: Record<string, string> = { training: '训练任务', slurm: 'Slurm 作业' };

interface TaskStopModalProps {
  /** The task to stop and whose it is; null: closed. */
  task: Pick<AdminUserTask, 'id' | 'kind' | 'name'> | null;
  owner: string;
  onClose: () => void;
}

/**
 * 停止 a user's task as an operator: says what happens and asks for a reason, which the task's owner reads in
 * the task's detail and in the message they get, and the audit log keeps. The server refuses a blank one too.
 */
export function TaskStopModal({ task, owner, onClose }: TaskStopModalProps) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const close = () => {
    setReason('');
    onClose();
  };
  const stop = useMutation({
    mutationFn: (t: Pick<AdminUserTask, 'id' | 'kind' | 'name'>) => stopUserTask(t.kind, t.id, reason.trim()),
    onSuccess: (r, t) => {
      toast.success(r.state === 'STOPPED' ? `已停止任务「${t.name}」` : `正在停止任务「${t.name}」，调度系统确认后结束`);
      // The detail's running tasks and its audit entries, the audit log.
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      close();
    },
  });
  const trimmed = reason.trim();
  return (
    <Modal
      open={task !== null}
      title="停止任务"
      okText="停止"
      okButtonProps={{ danger: true, disabled: !trimmed, loading: stop.isPending, 'data-testid': 'admin-task-stop-confirm' } as ButtonProps}
      cancelText="取消"
      onOk={() => task && trimmed && stop.mutate(task)}
      onCancel={close}
      destroyOnHidden
    >
      {task ? (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }} data-testid="admin-task-stop-modal">
          <Typography.Paragraph style={{ margin: 0 }}>
            确定要停止 <Typography.Text strong>{owner}</Typography.Text> 的{TASK_KIND_LABELS[task.kind] ?? '任务'}
            <Typography.Text strong>「{task.name}」</Typography.Text>吗？此操作不可撤销。
          </Typography.Paragraph>
          <Alert type="warning" showIcon title="作业将被立即取消，未保存的结果可能丢失。任务所有者会收到消息，任务详情和消息中都会显示您填写的原因，并记入审计日志。" />
          <ReasonField value={reason} onChange={setReason} placeholder="原因（必填，告知任务所有者并记入审计日志）" testId="admin-task-stop-reason" invalid={!!reason && !trimmed} />
          {reason && !trimmed ? (
            <Typography.Text type="danger" data-testid="admin-task-stop-error">
              请填写停止原因
            </Typography.Text>
          ) : null}
        </div>
      ) : null}
    </Modal>
  );
}
