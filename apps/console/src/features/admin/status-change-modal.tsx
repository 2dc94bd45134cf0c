import type { AdminUser } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Modal, Typography, type ButtonProps } from 'antd';
import { useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { ReasonField } from './reason-field';
import { setUserStatus } from './api';

interface StatusChangeModalProps {
  /** The account to disable (when active) or enable (when disabled); null: closed. */
  user: Pick<AdminUser, 'id' | 'username' | 'status'> | null;
  onClose: () => void;
}

/** 禁用 / 启用 with a confirmation that says what happens, and an optional reason kept in the audit log. */
export function StatusChangeModal({ user, onClose }: StatusChangeModalProps) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const disabling = user?.status === 'active';
  const change = useMutation({
    mutationFn: (u: Pick<AdminUser, 'id' | 'status'>) => setUserStatus(u.id, u.status === 'active' ? 'disabled' : 'active', { reason: reason.trim() || undefined }),
    onSuccess: (u) => {
      toast.success(u.status === 'disabled' ? `已禁用账号 ${u.username}` : `已启用账号 ${u.username}`);
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      setReason('');
      onClose();
    },
  });
  return (
    <Modal
      open={user !== null}
      title={disabling ? '禁用账号' : '启用账号'}
      okText={disabling ? '禁用' : '启用'}
      okButtonProps={{ danger: disabling, loading: change.isPending, 'data-testid': 'admin-status-confirm' } as ButtonProps}
      cancelText="取消"
      onOk={() => user && change.mutate(user)}
      onCancel={() => {
        setReason('');
        onClose();
      }}
      destroyOnHidden
    >
      {user ? (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }} data-testid="admin-status-modal">
          <Typography.Paragraph style={{ margin: 0 }}>
            确定要{disabling ? '禁用' : '启用'}账号 <Typography.Text strong>{user.username}</Typography.Text> 吗？
          </Typography.Paragraph>
          {disabling ? (
            <Alert
              type="warning"
              showIcon
              title="禁用后，该账号的所有登录会话（包括打开的终端）会立即结束，且无法再登录，直到被重新启用。运行中的任务不受影响。"
            />
          ) : (
            <Typography.Text type="secondary">启用后该账号可以重新登录；禁用前的登录会话不会恢复。</Typography.Text>
          )}
          <ReasonField value={reason} onChange={setReason} placeholder="原因（选填，记入审计日志）" testId="admin-status-reason" />
        </div>
      ) : null}
    </Modal>
  );
}
