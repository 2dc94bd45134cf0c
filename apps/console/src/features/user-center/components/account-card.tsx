import type { UserInfo } from '@suanli/contracts';
import { Button, Card, Descriptions, Space, Typography } from 'antd';
import { dayjs } from '../../../shared/dayjs';
import { Link } from 'react-router';
import { useBreakpoint } from '../../../shared/hooks/use-breakpoint';
import { NicknameField } from './nickname-field';

interface AccountCardProps {
  user: Partial<UserInfo>;
  savingNickname: boolean;
  onSaveNickname: (nickname: string) => Promise<unknown>;
  onEditPhone: () => void;
  onEditEmail: () => void;
}

function Unbound() {
  return <Typography.Text type="secondary">未绑定</Typography.Text>;
}

/** The account's fields and their edit actions. */
export function AccountCard({ user, savingNickname, onSaveNickname, onEditPhone, onEditEmail }: AccountCardProps) {
  const screens = useBreakpoint();
  return (
    <Card title="账号信息" styles={{ body: { padding: screens.sm ? 24 : 16 } }}>
      <Descriptions column={1} styles={{ label: { width: screens.sm ? 120 : 80 }, content: { minWidth: 0, overflowWrap: 'anywhere' } }} colon={false}>
        <Descriptions.Item label="用户名">
          <Typography.Text copyable data-testid="uc-username">
            {user.username}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label="昵称">
          <NicknameField value={user.nickname ?? ''} saving={savingNickname} onSave={onSaveNickname} />
        </Descriptions.Item>
        <Descriptions.Item label="手机号">
          <ContactField value={user.phone} onEdit={onEditPhone} testId="uc-phone" />
        </Descriptions.Item>
        <Descriptions.Item label="邮箱">
          <ContactField value={user.email} onEdit={onEditEmail} testId="uc-email" />
        </Descriptions.Item>
        <Descriptions.Item label="登录密码">
          <Space>
            <span>••••••••</span>
            <Link to="/login/edit" data-testid="uc-password-link">
              修改密码
            </Link>
          </Space>
        </Descriptions.Item>
        <Descriptions.Item label="注册时间">{user.createTime ? dayjs(user.createTime).format('YYYY-MM-DD HH:mm:ss') : '--'}</Descriptions.Item>
      </Descriptions>
    </Card>
  );
}

/** A masked phone or email (or 未绑定) with its 更换/绑定 action. */
function ContactField({ value, onEdit, testId }: { value: string | null | undefined; onEdit: () => void; testId: string }) {
  return (
    <Space>
      <span data-testid={testId}>{value || <Unbound />}</span>
      <Button type="link" size="small" onClick={onEdit} data-testid={`${testId}-edit`}>
        {value ? '更换' : '绑定'}
      </Button>
    </Space>
  );
}
