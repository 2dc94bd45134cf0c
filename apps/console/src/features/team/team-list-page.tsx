import { PlusOutlined, TeamOutlined } from '@ant-design/icons';
import { TEAM_DESCRIPTION_MAX, TEAM_NAME_MAX, TEAM_ROLE_LABELS, type Team, type TeamCreate } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Form, Input, List, Modal, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { formatTime } from '../../shared/time';
import { PageContainer } from '../../shared/ui/page-container';
import { createTeam, listTeams, myInvitations } from './api';
import { InvitationButtons, teamPath } from './invitation-answer';

const ROLE_COLORS: Record<Team['myRole'], string> = { owner: 'gold', admin: 'blue', member: 'default' };

export function RoleTag({ role }: { role: Team['myRole'] }) {
  return (
    <Tag color={ROLE_COLORS[role]} style={{ marginInlineEnd: 0 }} data-testid="team-role">
      {TEAM_ROLE_LABELS[role]}
    </Tag>
  );
}

/** 创建团队: name (unique among the caller's teams) and a description; opens the new team. */
function CreateTeamModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<TeamCreate>();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: (body: TeamCreate) => createTeam(body),
    onSuccess: (team) => {
      toast.success(`团队「${team.name}」已创建`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.team.root });
      form.resetFields();
      onClose();
      navigate(teamPath(team.id));
    },
  });
  return (
    <Modal
      title="创建团队"
      open={open}
      onCancel={onClose}
      okText="创建"
      cancelText="取消"
      confirmLoading={create.isPending}
      onOk={() => form.submit()}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'team-create-ok' }}
    >
      <Form form={form} layout="vertical" onFinish={(v) => create.mutate({ name: v.name.trim(), description: v.description?.trim() ?? '' })}>
        <Form.Item name="name" label="团队名称" rules={[{ required: true, whitespace: true, message: '请输入团队名称' }]}>
          <Input maxLength={TEAM_NAME_MAX} showCount placeholder="例如：蛋白质结构课题组" data-testid="team-name" />
        </Form.Item>
        <Form.Item name="description" label="团队简介">
          <Input.TextArea maxLength={TEAM_DESCRIPTION_MAX} showCount rows={3} placeholder="团队的研究方向或用途（选填）" data-testid="team-description" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** 团队管理: the caller's teams with their role and size, invitations waiting for them, and 创建团队. */
export function TeamListPage() {
  const [creating, setCreating] = useState(false);
  const teams = useQuery({ queryKey: queryKeys.team.list, queryFn: listTeams });
  const invitations = useQuery({ queryKey: queryKeys.team.invitations, queryFn: myInvitations });
  const pending = invitations.data ?? [];

  return (
    <PageContainer
      title="团队管理"
      description="创建团队、邀请成员；团队成员共享团队的数据与算力。"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="team-create">
          创建团队
        </Button>
      }
    >
      <Flex vertical gap={16}>
        {pending.length > 0 && (
          <Card title="待处理的邀请" size="small" data-testid="team-invitations">
            <List
              dataSource={pending}
              renderItem={(inv) => (
                <List.Item data-testid="team-invitation" style={{ flexWrap: 'wrap', gap: 8 }}>
                  <List.Item.Meta
                    style={{ flex: '1 1 240px', minWidth: 0 }}
                    title={<span style={{ overflowWrap: 'anywhere' }}>{inv.teamName}</span>}
                    description={`${inv.inviterName} 邀请您加入 · ${formatTime(inv.expireTime)} 前有效`}
                  />
                  <InvitationButtons invitation={inv} />
                </List.Item>
              )}
            />
          </Card>
        )}
        <Card title="我的团队" size="small">
          <List
            loading={teams.isPending}
            dataSource={teams.data ?? []}
            locale={{ emptyText: <Empty description="您还没有加入任何团队" image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
            renderItem={(team) => (
              <List.Item data-testid="team-row" data-id={team.id} style={{ flexWrap: 'wrap', gap: 8 }}>
                <List.Item.Meta
                  avatar={<TeamOutlined style={{ fontSize: 24, color: '#1677ff' }} aria-label="团队" />}
                  title={
                    <Space size={[8, 4]} wrap>
                      <Link to={teamPath(team.id)} style={{ overflowWrap: 'anywhere' }} data-testid="team-link">
                        {team.name}
                      </Link>
                      <RoleTag role={team.myRole} />
                    </Space>
                  }
                  description={
                    <Flex vertical gap={2}>
                      {team.description && <Typography.Text type="secondary" style={{ overflowWrap: 'anywhere' }}>{team.description}</Typography.Text>}
                      <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="team-meta">
                        所有者 {team.ownerName} · {team.memberCount} 名成员 · 创建于 {formatTime(team.createTime)}
                      </Typography.Text>
                    </Flex>
                  }
                />
              </List.Item>
            )}
          />
        </Card>
      </Flex>
      <CreateTeamModal open={creating} onClose={() => setCreating(false)} />
    </PageContainer>
  );
}
