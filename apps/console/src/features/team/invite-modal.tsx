import type { UserBrief } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Modal, Select, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { inviteMember, searchUsers } from './api';

/** Typing pauses this long before the search runs. */
const SEARCH_DELAY_MS = 300;

const label = (u: UserBrief) => (u.nickname && u.nickname !== u.username ? `${u.nickname}（${u.username}）` : u.username);

/** 邀请成员: find an account by username or nickname and invite it; the invitee answers in 消息中心 within 7 days. */
export function InviteModal({ teamId, open, onClose }: { teamId: string; open: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState('');
  const [username, setUsername] = useState<string>();
  useEffect(() => {
    const t = setTimeout(() => setKeyword(typed.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(t);
  }, [typed]);
  const users = useQuery({ queryKey: queryKeys.team.users(keyword), queryFn: () => searchUsers(keyword), enabled: open && keyword.length > 0 });
  const invite = useMutation({
    mutationFn: (name: string) => inviteMember(teamId, name),
    onSuccess: (inv) => {
      toast.success(`已向 ${inv.inviteeName} 发出邀请`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.team.root });
      setUsername(undefined);
      setTyped('');
      onClose();
    },
  });
  return (
    <Modal
      title="邀请成员"
      open={open}
      onCancel={onClose}
      okText="发送邀请"
      cancelText="取消"
      okButtonProps={{ disabled: !username, 'data-testid': 'team-invite-ok' }}
      confirmLoading={invite.isPending}
      onOk={() => username && invite.mutate(username)}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">输入用户名或昵称搜索用户。对方将在消息中心收到邀请，7 天内有效。</Typography.Paragraph>
      <Select
        showSearch
        style={{ width: '100%' }}
        placeholder="搜索用户名或昵称"
        filterOption={false}
        value={username}
        onSearch={setTyped}
        onChange={setUsername}
        loading={users.isFetching}
        notFoundContent={keyword ? (users.isFetching ? '搜索中…' : '没有找到用户') : '请输入用户名或昵称'}
        options={(users.data?.list ?? []).map((u) => ({ value: u.username, label: label(u) }))}
        aria-label="搜索用户"
        data-testid="team-invite-user"
      />
    </Modal>
  );
}
