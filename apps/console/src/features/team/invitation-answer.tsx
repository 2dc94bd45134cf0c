import { TEAM_INVITATION_STATE_LABELS, type TeamInvitation } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Space, Tag, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { acceptInvitation, declineInvitation, getInvitation } from './api';

export const teamPath = (id: string) => `/team/detail/${encodeURIComponent(id)}`;

/** 接受 / 拒绝 of one invitation; after accepting, the team opens. */
export function InvitationButtons({ invitation }: { invitation: Pick<TeamInvitation, 'id' | 'teamName'> }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const done = () => queryClient.invalidateQueries({ queryKey: queryKeys.team.root });
  const accept = useMutation({
    mutationFn: () => acceptInvitation(invitation.id),
    onSuccess: (team) => {
      toast.success(`已加入团队「${team.name}」`);
      void done();
      navigate(teamPath(team.id));
    },
    onError: () => void done(),
  });
  const decline = useMutation({
    mutationFn: () => declineInvitation(invitation.id),
    onSuccess: () => {
      toast.success('已拒绝邀请');
      return done();
    },
    onError: () => void done(),
  });
  const busy = accept.isPending || decline.isPending;
  return (
    <Space>
      <Button type="primary" size="small" loading={accept.isPending} disabled={busy} onClick={() => accept.mutate()} data-testid="team-invitation-accept">
        接受
      </Button>
      <Button size="small" loading={decline.isPending} disabled={busy} onClick={() => decline.mutate()} data-testid="team-invitation-decline">
        拒绝
      </Button>
    </Space>
  );
}

/**
 * Under a team invitation in 消息中心: 接受 / 拒绝 while it waits, otherwise what became of it (a message
 * stays; the invitation may have been answered, withdrawn or have expired since).
 */
export function InvitationAnswer({ invitationId }: { invitationId: string }) {
  const inv = useQuery({ queryKey: queryKeys.team.invitation(invitationId), queryFn: () => getInvitation(invitationId), retry: false });
  if (inv.isPending) return null;
  if (inv.isError || !inv.data) return <Typography.Text type="secondary">邀请已失效</Typography.Text>;
  if (inv.data.state === 'pending') return <InvitationButtons invitation={inv.data} />;
  return (
    <Tag data-testid="team-invitation-state" style={{ marginInlineEnd: 0 }}>
      {TEAM_INVITATION_STATE_LABELS[inv.data.state]}
    </Tag>
  );
}
