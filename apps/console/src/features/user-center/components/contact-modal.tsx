import { MailOutlined, MobileOutlined, SafetyOutlined } from '@ant-design/icons';
import { Form, Input, Modal, Space, type ButtonProps } from 'antd';
import { CodeButton } from '../../../shared/ui/code-button';
import { codeRules, emailRules, phoneRules } from '../../auth/rules';

export type ContactKind = 'phone' | 'email';

export interface ContactValues {
  target: string;
  code: string;
}

interface ContactModalProps {
  kind: ContactKind | null;
  /** Whether the account already has one (changes the wording from 绑定 to 更换). */
  hasCurrent: boolean;
  saving: boolean;
  onSendCode: (kind: ContactKind, target: string) => Promise<unknown>;
  onSubmit: (kind: ContactKind, values: ContactValues) => Promise<unknown>;
  onClose: () => void;
}

const TEXT = {
  phone: { noun: '手机号', placeholder: '请输入新的11位手机号', icon: <MobileOutlined /> },
  email: { noun: '邮箱', placeholder: '请输入要绑定的邮箱地址', icon: <MailOutlined /> },
};

/** Change the phone or bind an email: a code goes to the new address, which proves it is the user's. */
export function ContactModal({ kind, hasCurrent, saving, onSendCode, onSubmit, onClose }: ContactModalProps) {
  const [form] = Form.useForm<ContactValues>();
  const text = kind ? TEXT[kind] : TEXT.phone;
  const title = `${hasCurrent ? '更换' : '绑定'}${text.noun}`;

  const submit = async () => {
    if (!kind) return;
    const values = await form.validateFields();
    try {
      await onSubmit(kind, { target: values.target.trim(), code: values.code });
      form.resetFields();
    } catch {
      // Shown by the pipeline; the dialog stays open for another try.
    }
  };

  return (
    <Modal
      open={kind !== null}
      title={title}
      okText="确认"
      confirmLoading={saving}
      onOk={submit}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      okButtonProps={{ 'data-testid': 'uc-contact-submit' } as ButtonProps}
      destroyOnHidden
    >
      <Form<ContactValues> form={form} layout="vertical" requiredMark={false} preserve={false}>
        <Form.Item name="target" label={`新${text.noun}`} rules={kind === 'email' ? emailRules : phoneRules}>
          <Input prefix={text.icon} placeholder={text.placeholder} data-testid="uc-contact-input" />
        </Form.Item>
        <Form.Item label="验证码" required>
          <Space.Compact block>
            <Form.Item name="code" noStyle rules={codeRules}>
              <Input prefix={<SafetyOutlined />} placeholder="6位数字验证码" maxLength={6} data-testid="uc-contact-code" />
            </Form.Item>
            <CodeButton
              testId="uc-contact-send-code"
              onSend={async () => {
                const { target } = await form.validateFields(['target']);
                return kind ? onSendCode(kind, target.trim()) : undefined;
              }}
            />
          </Space.Compact>
        </Form.Item>
      </Form>
    </Modal>
  );
}
