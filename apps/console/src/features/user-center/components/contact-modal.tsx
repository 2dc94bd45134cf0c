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
  phone: { noun: '手机号', what: '11位手机号', icon: <MobileOutlined /> },
  email: { noun: '邮箱', what: '邮箱地址', icon: <MailOutlined /> },
};

/** 绑定 when the account has none yet, 更换 when it replaces one: title, label, placeholder and toast agree. */
export function contactWording(kind: ContactKind, hasCurrent: boolean) {
  const { noun, what } = TEXT[kind];
  const verb = hasCurrent ? '更换' : '绑定';
  return {
    title: `${verb}${noun}`,
    label: hasCurrent ? `新${noun}` : noun,
    placeholder: hasCurrent ? `请输入新的${what}` : `请输入要绑定的${what}`,
    done: `${noun}已${hasCurrent ? '更换' : '绑定'}`,
  };
}

/** Bind or change the phone or email: a code goes to the new address, which proves it is the user's. */
export function ContactModal({ kind, hasCurrent, saving, onSendCode, onSubmit, onClose }: ContactModalProps) {
  const [form] = Form.useForm<ContactValues>();
  const text = kind ? TEXT[kind] : TEXT.phone;
  const wording = contactWording(kind ?? 'phone', hasCurrent);
  const title = wording.title;

  const submit = async () => {
    if (!kind) return;
    let values: ContactValues;
    try {
      values = await form.validateFields();
    } catch {
      return; // the fields show why; the Modal ignores what onOk returns, so nothing may reject
    }
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
        <Form.Item name="target" label={wording.label} rules={kind === 'email' ? emailRules : phoneRules}>
          <Input prefix={text.icon} placeholder={wording.placeholder} data-testid="uc-contact-input" />
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
