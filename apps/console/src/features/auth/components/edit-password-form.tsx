import { LockOutlined } from '@ant-design/icons';
import { Button, Form, Input } from 'antd';
import { Link } from 'react-router';
import { confirmRules, passwordRules } from '../rules';

export interface EditPasswordValues {
  oldPassword: string;
  newPassword: string;
  confirm: string;
}

interface EditPasswordFormProps {
  loading: boolean;
  onSubmit: (values: EditPasswordValues) => void;
}

export function EditPasswordForm({ loading, onSubmit }: EditPasswordFormProps) {
  return (
    <Form<EditPasswordValues> layout="vertical" requiredMark={false} onFinish={onSubmit}>
      <Form.Item name="oldPassword" label="原密码" rules={[{ required: true, message: '请输入原密码' }]}>
        <Input.Password prefix={<LockOutlined />} placeholder="请输入原密码" autoComplete="current-password" data-testid="pwd-old" />
      </Form.Item>
      <Form.Item
        name="newPassword"
        label="新密码"
        dependencies={['oldPassword']}
        rules={[
          ...passwordRules,
          ({ getFieldValue }) => ({
            validator: (_r, v: string | undefined) =>
              !v || v !== getFieldValue('oldPassword') ? Promise.resolve() : Promise.reject(new Error('新密码不能与原密码相同')),
          }),
        ]}
      >
        <Input.Password prefix={<LockOutlined />} placeholder="8-64位，须包含字母和数字" autoComplete="new-password" data-testid="pwd-new" />
      </Form.Item>
      <Form.Item name="confirm" label="确认新密码" dependencies={['newPassword']} rules={confirmRules('newPassword')}>
        <Input.Password prefix={<LockOutlined />} placeholder="请再次输入新密码" autoComplete="new-password" data-testid="pwd-confirm" />
      </Form.Item>
      <Form.Item style={{ marginBottom: 12 }}>
        <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="pwd-submit">
          确认修改
        </Button>
      </Form.Item>
      <div style={{ textAlign: 'center' }}>
        <Link to="/user-center">返回个人信息</Link>
      </div>
    </Form>
  );
}
