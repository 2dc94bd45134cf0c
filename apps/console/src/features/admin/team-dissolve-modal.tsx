import type { AdminTeam } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Modal, Typography, type ButtonProps } from 'antd';
import { useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { ReasonField } from './reason-field';
import { dissolveTeam } from './api';

interface TeamDissolveModalProps {
  /** The team to dissolve; null: closed. */
  team: Pick<AdminTeam, 'id' | 'name' | 'ownerUsername' | 'memberCount'> | null;
  onClose: () => void;
}

/**
 * 解散 a team as an operator: says what happens (ADR 0017 "Dissolving a team") and asks for a reason, which
 * the audit log keeps and every member reads in the message they get.
 */
export function TeamDissolveModal({ team, onClose }: TeamDissolveModalProps) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const close = () => {
    setReason('');
    onClose();
  };
  const dissolve = useMutation({
    mutationFn: (t: { id: string; name: string }) => dissolveTeam(t.id, reason.trim()),
    onSuccess: (_r, t) => {
      toast.success(`已解散团队「${t.name}」`);
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      close();
    },
  });
  return (
    <Modal
      open={team !== null}
      title="解散团队"
      okText="解散"
      okButtonProps={{ danger: true, disabled: !reason.trim(), loading: dissolve.isPending, 'data-testid': 'admin-team-dissolve-confirm' } as ButtonProps}
      cancelText="取消"
      onOk={() => team && dissolve.mutate(team)}
      onCancel={close}
      destroyOnHidden
    >
      {team ? (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }} data-testid="admin-team-dissolve-modal">
          <Typography.Paragraph style={{ margin: 0 }}>
            确定要解散 <Typography.Text strong>{team.ownerUsername}</Typography.Text> 的团队 <Typography.Text strong>「{team.name}」</Typography.Text>（{team.memberCount}{' '}
            名成员）吗？此操作不可撤销。
          </Typography.Paragraph>
          <Alert
            type="warning"
            showIcon
            title="解散后全部成员立即失去团队空间和共享给团队的数据集、模型；团队剩余算力不再可用，以团队付费运行的任务会在下一次计量时停止。团队空间中的文件保留在分中心。每位成员都会收到消息，消息中包含您填写的原因。"
          />
          <ReasonField value={reason} onChange={setReason} placeholder="原因（必填，记入审计日志并告知成员）" testId="admin-team-dissolve-reason" />
        </div>
      ) : null}
    </Modal>
  );
}
