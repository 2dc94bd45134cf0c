import { LockOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Form, Input, Space } from 'antd';
import { Link } from 'react-router';
import { CodeButton } from '../../../shared/ui/code-button';
import { codeRules, confirmRules, passwordRules, targetRules } from '../rules';

export interface FindPasswordValues {
  target: string;
  code: string;
  newPassword: string;
  confirm: string;
}

interface FindPasswordFormProps {
  loading: boolean;
  onSendCode: (target: string) => Promise<unknown>;
  onSubmit: (values: FindPasswordValues) => void;
}

export function FindPasswordForm({ loading, onSendCode, onSubmit }: FindPasswordFormProps) {
  const [form] = Form.useForm<FindPasswordValues>();
  const sendCode = async () => {
    const { target } = await form.validateFields(['target']);
    return onSendCode(target.trim());
  };

  return (
    <Form<FindPasswordValues> form={form} layout="vertical" requiredMark={false} onFinish={onSubmit}>
      <Form.Item name="target" label="手机号或邮箱" rules={targetRules}>
        <Input prefix={<UserOutlined />} placeholder="注册时绑定的手机号或邮箱" data-testid="find-target" />
      </Form.Item>
      <Form.Item label="验证码" required>
        <Space.Compact block>
          <Form.Item name="code" noStyle rules={codeRules}>
            <Input prefix={<SafetyOutlined />} placeholder="6位数字验证码" maxLength={6} autoComplete="one-time-code" data-testid="find-code" />
          </Form.Item>
          <CodeButton onSend={sendCode} testId="find-send-code" />
        </Space.Compact>
      </Form.Item>
      <Form.Item name="newPassword" label="新密码" rules={passwordRules}>
        <Input.Password prefix={<LockOutlined />} placeholder="8-64位，须包含字母和数字" autoComplete="new-password" data-testid="find-password" />
      </Form.Item>
      <Form.Item name="confirm" label="确认新密码" dependencies={['newPassword']} rules={confirmRules('newPassword')}>
        <Input.Password prefix={<LockOutlined />} placeholder="请再次输入新密码" autoComplete="new-password" data-testid="find-confirm" />
      </Form.Item>
      <Form.Item style={{ marginBottom: 12 }}>
        <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="find-submit">
          重置密码
        </Button>
      </Form.Item>
      <div style={{ textAlign: 'center' }}>
        想起密码了？<Link to="/login">返回登录</Link>
      </div>
    </Form>
  );
}
