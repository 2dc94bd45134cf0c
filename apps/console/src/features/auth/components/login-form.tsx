import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Form, Input } from 'antd';
import type { LoginBody } from '@suanli/contracts';
import { Link } from 'react-router';

/** The login call's body, the password still in clear (login() encrypts it). */
export type LoginValues = LoginBody;

interface LoginFormProps {
  initialAccount: string;
  loading: boolean;
  onSubmit: (values: LoginValues) => void;
}

export function LoginForm({ initialAccount, loading, onSubmit }: LoginFormProps) {
  return (
    <Form<LoginValues> layout="vertical" size="large" requiredMark={false} initialValues={{ account: initialAccount }} onFinish={onSubmit}>
      <Form.Item name="account" label="账号" rules={[{ required: true, whitespace: true, message: '请输入用户名、手机号或邮箱' }]}>
        <Input prefix={<UserOutlined />} placeholder="用户名 / 手机号 / 邮箱" autoComplete="username" data-testid="login-account" />
      </Form.Item>
      <Form.Item name="password" label="密码" rules={[{ required: true, message: '请输入密码' }]}>
        <Input.Password prefix={<LockOutlined />} placeholder="请输入密码" autoComplete="current-password" data-testid="login-password" />
      </Form.Item>
      <Form.Item style={{ marginBottom: 16 }}>
        <Button type="primary" htmlType="submit" block loading={loading} data-testid="login-submit">
          登录
        </Button>
      </Form.Item>
      <div style={{ display: 'flex', justifyContent: 'space-between' }}>
        <Link to="/login/register" data-testid="login-register-link">
          注册账号
        </Link>
        <Link to="/login/find" data-testid="login-find-link">
          忘记密码
        </Link>
      </div>
    </Form>
  );
}
