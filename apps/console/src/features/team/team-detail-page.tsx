import { ArrowLeftOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { TEAM_DESCRIPTION_MAX, TEAM_NAME_MAX, type TeamDetail, type TeamMember, type TeamUpdate } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Empty, Flex, Form, Input, List, Modal, Popconfirm, Result, Select, Space, Spin, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useUserStore } from '../../app/stores/user-store';
import { formatTime } from '../../shared/time';
import { PageContainer } from '../../shared/ui/page-container';
import { cancelInvitation, dissolveTeam, getTeam, leaveTeam, removeMember, setMemberRole, transferTeam, updateTeam } from './api';
import { InviteModal } from './invite-modal';
import { TeamCompute } from './team-compute';
import { TeamShared } from './team-shared';
import { RoleTag } from './team-list-page';

/** What the caller's role lets them do to one member (the server decides again; this only hides buttons). */
function memberActions(team: TeamDetail, m: TeamMember, myId: string) {
  const me = team.myRole;
  const self = m.userId === myId;
  return {
    setRole: me === 'owner' && m.role !== 'owner',
    transfer: me === 'owner' && m.role !== 'owner',
    remove: !self && m.role !== 'owner' && (me === 'owner' || (me === 'admin' && m.role === 'member')),
  };
}
/** A change to the team: a toast on success, then the team's queries are read again (and `after`). */
function useTeamAction<T>(run: (arg: T) => Promise<unknown>, done: string, after?: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => {
      toast.success(done);
      void queryClient.invalidateQueries({ queryKey: queryKeys.team.root });
      after?.();
    },
  });
}

function EditModal({ team, open, onClose }: { team: TeamDetail; open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<TeamUpdate>();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (body: TeamUpdate) => updateTeam(team.id, body),
    onSuccess: () => {
      toast.success('团队信息已保存');
      void queryClient.invalidateQueries({ queryKey: queryKeys.team.root });
      onClose();
    },
  });
  return (
    <Modal title="编辑团队" open={open} onCancel={onClose} okText="保存" cancelText="取消" confirmLoading={save.isPending} onOk={() => form.submit()} destroyOnHidden>
      <Form form={form} layout="vertical" initialValues={{ name: team.name, description: team.description }} onFinish={(v) => save.mutate({ name: v.name.trim(), description: v.description?.trim() ?? '' })}>
        <Form.Item name="name" label="团队名称" rules={[{ required: true, whitespace: true, message: '请输入团队名称' }]}>
          <Input maxLength={TEAM_NAME_MAX} showCount />
        </Form.Item>
        <Form.Item name="description" label="团队简介">
          <Input.TextArea maxLength={TEAM_DESCRIPTION_MAX} showCount rows={3} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** 团队详情: the team, its members with roles and what the caller may do to each, pending invitations, leave/dissolve. */
export function TeamDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const myId = useUserStore((s) => s.userInfo.id) ?? '';
  const [inviting, setInviting] = useState(false);
  const [editing, setEditing] = useState(false);
  const detail = useQuery({ queryKey: queryKeys.team.detail(id), queryFn: () => getTeam(id), retry: false });
  const act = useTeamAction;
  const role = act((m: { userId: string; role: 'admin' | 'member' }) => setMemberRole(id, m.userId, m.role), '角色已更新');
  const remove = act((userId: string) => removeMember(id, userId), '成员已移除');
  const transfer = act((userId: string) => transferTeam(id, userId), '团队已转让');
  const cancel = act((invitationId: string) => cancelInvitation(invitationId), '邀请已撤回');
  const leave = act(() => leaveTeam(id), '已退出团队', () => navigate('/team'));
  const dissolve = act(() => dissolveTeam(id), '团队已解散', () => navigate('/team'));

  const back = (
    <Link to="/team">
      <ArrowLeftOutlined /> 返回团队列表
    </Link>
  );
  if (detail.isPending) return <Spin style={{ display: 'block', margin: '64px auto' }} />;
  if (detail.isError || !detail.data) {
    return (
      <PageContainer title="团队详情">
        <Result status="warning" title="无法打开此团队" subTitle={detail.error?.message || '团队不存在或您不是其成员'} extra={back} />
      </PageContainer>
    );
  }
  const team = detail.data;
  const manages = team.myRole !== 'member';
  const owner = team.myRole === 'owner';

  return (
    <PageContainer
      title={team.name}
      description={back}
      extra={
        <Space wrap>
          {manages && (
            <Button icon={<EditOutlined />} onClick={() => setEditing(true)} data-testid="team-edit">
              编辑
            </Button>
          )}
          {owner ? (
            <Popconfirm title="解散团队" description="解散后团队与全部成员关系将被删除，且无法恢复。" okText="解散" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => dissolve.mutate(undefined)}>
              <Button danger loading={dissolve.isPending} data-testid="team-dissolve">
                解散团队
              </Button>
            </Popconfirm>
          ) : (
            <Popconfirm title="退出团队" description={`确定退出团队「${team.name}」吗？`} okText="退出" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => leave.mutate(undefined)}>
              <Button danger loading={leave.isPending} data-testid="team-leave">
                退出团队
              </Button>
            </Popconfirm>
          )}
        </Space>
      }
    >
      <Flex vertical gap={16}>
        <Card size="small">
          <Descriptions column={{ xs: 1, sm: 2 }} size="small">
            <Descriptions.Item label="我的角色">
              <RoleTag role={team.myRole} />
            </Descriptions.Item>
            <Descriptions.Item label="所有者">{team.ownerName}</Descriptions.Item>
            <Descriptions.Item label="成员数">{team.memberCount}</Descriptions.Item>
            <Descriptions.Item label="创建时间">{formatTime(team.createTime)}</Descriptions.Item>
            <Descriptions.Item label="简介" span={2}>
              <span style={{ overflowWrap: 'anywhere' }}>{team.description || '—'}</span>
            </Descriptions.Item>
          </Descriptions>
        </Card>
        <Card
          size="small"
          title={`成员（${team.members.length}）`}
          extra={
            manages && (
              <Button type="primary" size="small" icon={<PlusOutlined />} onClick={() => setInviting(true)} data-testid="team-invite">
                邀请成员
              </Button>
            )
          }
        >
          <List
            dataSource={team.members}
            renderItem={(m) => {
              const can = memberActions(team, m, myId);
              return (
                <List.Item data-testid="team-member" data-user={m.username} style={{ flexWrap: 'wrap', gap: 8 }}>
                  <List.Item.Meta
                    // Wide enough that on a phone the controls wrap below instead of squeezing the name.
                    style={{ flex: '1 1 240px', minWidth: 0 }}
                    title={
                      <Space size={[8, 4]} wrap>
                        <span style={{ overflowWrap: 'anywhere' }}>{m.nickname || m.username}</span>
                        <RoleTag role={m.role} />
                      </Space>
                    }
                    description={`${m.nickname && m.nickname !== m.username ? `${m.username} · ` : ''}${formatTime(m.joinTime)} 加入`}
                  />
                  <Space wrap size={4}>
                    {can.setRole && (
                      <Select
                        size="small"
                        value={m.role}
                        style={{ width: 96 }}
                        aria-label="角色"
                        options={[
                          { value: 'admin', label: '管理员' },
                          { value: 'member', label: '成员' },
                        ]}
                        onChange={(v) => role.mutate({ userId: m.userId, role: v as 'admin' | 'member' })}
                        data-testid="team-member-role"
                      />
                    )}
                    {can.transfer && (
                      <Popconfirm title="转让团队" description={`将团队转让给 ${m.username}？转让后您将成为管理员。`} okText="转让" cancelText="取消" onConfirm={() => transfer.mutate(m.userId)}>
                        <Button size="small" data-testid="team-member-transfer">
                          转让
                        </Button>
                      </Popconfirm>
                    )}
                    {can.remove && (
                      <Popconfirm title="移除成员" description={`将 ${m.username} 移出团队？`} okText="移除" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => remove.mutate(m.userId)}>
                        <Button size="small" danger data-testid="team-member-remove">
                          移除
                        </Button>
                      </Popconfirm>
                    )}
                  </Space>
                </List.Item>
              );
            }}
          />
        </Card>
        <TeamCompute team={team} />
        <TeamShared team={team} />
        {manages && (
          <Card size="small" title="待回应的邀请">
            <List
              dataSource={team.invitations}
              locale={{ emptyText: <Empty description="暂无待回应的邀请" image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
              renderItem={(inv) => (
                <List.Item data-testid="team-pending" style={{ flexWrap: 'wrap', gap: 8 }}>
                  <List.Item.Meta style={{ flex: '1 1 240px', minWidth: 0 }} title={inv.inviteeName} description={`${inv.inviterName} 邀请 · ${formatTime(inv.expireTime)} 前有效`} />
                  <Popconfirm title="撤回邀请" description={`撤回对 ${inv.inviteeName} 的邀请？`} okText="撤回" cancelText="取消" onConfirm={() => cancel.mutate(inv.id)}>
                    <Button size="small" data-testid="team-pending-cancel">
                      撤回
                    </Button>
                  </Popconfirm>
                </List.Item>
              )}
            />
          </Card>
        )}
        {!manages && (
          <Typography.Text type="secondary">成员可查看团队与成员；邀请与管理成员由所有者和管理员进行。</Typography.Text>
        )}
      </Flex>
      {manages && <InviteModal teamId={team.id} open={inviting} onClose={() => setInviting(false)} />}
      {manages && <EditModal team={team} open={editing} onClose={() => setEditing(false)} />}
    </PageContainer>
  );
}
