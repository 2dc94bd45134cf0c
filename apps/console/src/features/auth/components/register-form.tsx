import { LockOutlined, MailOutlined, MobileOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { PATTERNS } from '@suanli/contracts';
import { Button, Checkbox, Form, Input, Segmented, Space } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { CodeButton } from '../../../shared/ui/code-button';
import type { CheckField } from '../api';
import { codeRules, confirmRules, emailRules, passwordRules, phoneRules, usernameRules } from '../rules';

export type ContactKind = 'email' | 'phone';

export interface RegisterValues {
  username: string;
  password: string;
  confirm: string;
  email?: string;
  phone?: string;
  code: string;
  agreement: boolean;
}

interface RegisterFormProps {
  loading: boolean;
  /** Resolves true when the value is already taken. */
  isTaken: (field: CheckField, value: string) => Promise<boolean>;
  onSendCode: (kind: ContactKind, target: string) => Promise<unknown>;
  onSubmit: (values: RegisterValues, kind: ContactKind) => void;
}

const TAKEN_TEXT: Record<CheckField, string> = {
  username: '该用户名已被注册',
  email: '该邮箱已被注册',
  phone: '该手机号已被注册',
};

export function RegisterForm({ loading, isTaken, onSendCode, onSubmit }: RegisterFormProps) {
  const [form] = Form.useForm<RegisterValues>();
  const [kind, setKind] = useState<ContactKind>('email');

  // Checked on blur only, so typing does not fire a request per keystroke.
  const availability = (field: CheckField, pattern: RegExp) => ({
    validateTrigger: 'onBlur',
    validator: async (_rule: unknown, value: string | undefined) => {
      if (!value || !pattern.test(value)) return;
      if (await isTaken(field, value)) throw new Error(TAKEN_TEXT[field]);
    },
  });

  const sendCode = async () => {
    const values = await form.validateFields([kind]);
    return onSendCode(kind, values[kind] as string);
  };

  return (
    <Form<RegisterValues> form={form} layout="vertical" requiredMark={false} onFinish={(v) => onSubmit(v, kind)}>
      <Form.Item
        name="username"
        label="用户名"
        validateTrigger={['onChange', 'onBlur']}
        rules={[...usernameRules, availability('username', PATTERNS.username)]}
        hasFeedback
      >
        <Input prefix={<UserOutlined />} placeholder="4-32位字母、数字或下划线" autoComplete="username" data-testid="reg-username" />
      </Form.Item>
      <Form.Item name="password" label="密码" rules={passwordRules}>
        <Input.Password prefix={<LockOutlined />} placeholder="8-64位，须包含字母和数字" autoComplete="new-password" data-testid="reg-password" />
      </Form.Item>
      <Form.Item name="confirm" label="确认密码" dependencies={['password']} rules={confirmRules('password')}>
        <Input.Password prefix={<LockOutlined />} placeholder="请再次输入密码" autoComplete="new-password" data-testid="reg-confirm" />
      </Form.Item>
      <Form.Item label="验证方式">
        <Segmented<ContactKind>
          block
          value={kind}
          onChange={setKind}
          options={[
            { value: 'email', label: <span data-testid="reg-contact-email">邮箱注册</span> },
            { value: 'phone', label: <span data-testid="reg-contact-phone">手机号注册</span> },
          ]}
        />
      </Form.Item>
      {kind === 'email' ? (
        <Form.Item name="email" label="邮箱" validateTrigger={['onChange', 'onBlur']} rules={[...emailRules, availability('email', PATTERNS.email)]}>
          <Input prefix={<MailOutlined />} placeholder="用于接收验证码和找回密码" autoComplete="email" data-testid="reg-email" />
        </Form.Item>
      ) : (
        <Form.Item name="phone" label="手机号" validateTrigger={['onChange', 'onBlur']} rules={[...phoneRules, availability('phone', PATTERNS.phone)]}>
          <Input prefix={<MobileOutlined />} placeholder="用于接收验证码和找回密码" autoComplete="tel" maxLength={11} data-testid="reg-phone" />
        </Form.Item>
      )}
      <Form.Item label="验证码" required>
        <Space.Compact block>
          <Form.Item name="code" noStyle rules={codeRules}>
            <Input prefix={<SafetyOutlined />} placeholder="6位数字验证码" maxLength={6} autoComplete="one-time-code" data-testid="reg-code" />
          </Form.Item>
          <CodeButton onSend={sendCode} testId="reg-send-code" />
        </Space.Compact>
      </Form.Item>
      <Form.Item
        name="agreement"
        valuePropName="checked"
        rules={[{ validator: (_r, v) => (v ? Promise.resolve() : Promise.reject(new Error('请阅读并同意用户协议'))) }]}
      >
        <Checkbox data-testid="reg-agreement">
          我已阅读并同意
          <Link to="/user-agreement" target="_blank" rel="noopener">
            《用户协议》
          </Link>
        </Checkbox>
      </Form.Item>
      <Form.Item style={{ marginBottom: 12 }}>
        <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="reg-submit">
          注册
        </Button>
      </Form.Item>
      <div style={{ textAlign: 'center' }}>
        已有账号？<Link to="/login">立即登录</Link>
      </div>
    </Form>
  );
}
