import { Form, Input, Modal } from 'antd';
import { nameProblem } from '../paths';
import { useModalSubmit } from './use-modal-submit';

export interface NameModalProps {
  open: boolean;
  title: string;
  initialName?: string;
  okText?: string;
  /** Resolves when done; a rejection keeps the dialog open (the pipeline already showed why). */
  onSubmit: (name: string) => Promise<unknown>;
  onClose: () => void;
}

/** One name field for 新建文件夹 and 重命名. */
export function NameModal({ open, title, initialName, okText = '确定', onSubmit, onClose }: NameModalProps) {
  const [form] = Form.useForm<{ name: string }>();
  const { busy, run } = useModalSubmit(onSubmit, onClose);
  const submit = async () => {
    let name: string;
    try {
      ({ name } = await form.validateFields());
    } catch {
      // Refused by the field's rule, which shows why under the input; nothing may escape as an uncaught
      // rejection (the Modal ignores what onOk returns).
      return;
    }
    await run(name);
  };
  return (
    <Modal
      open={open}
      title={title}
      okText={okText}
      cancelText="取消"
      confirmLoading={busy}
      onOk={submit}
      onCancel={onClose}
      destroyOnHidden
      okButtonProps={{ ...({ 'data-testid': 'storage-modal-ok' } as object) }}
      afterOpenChange={(visible) => {
        if (!visible) return;
        // Select the stem so typing replaces the name but keeps the extension. The value itself comes from
        // initialValues (the dialog mounts fresh per use): setting it here would clobber fast typing.
        const input = document.querySelector<HTMLInputElement>('[data-testid="storage-name-input"]');
        const current = input?.value ?? '';
        if (input && current === (initialName ?? '')) {
          const dot = current.lastIndexOf('.');
          input.focus();
          input.setSelectionRange(0, dot > 0 ? dot : current.length);
        }
      }}
    >
      <Form form={form} layout="vertical" preserve={false} onFinish={submit} initialValues={{ name: initialName ?? '' }}>
        <Form.Item
          name="name"
          label="名称"
          rules={[{ validator: (_, v: string | undefined) => (nameProblem(v ?? '') ? Promise.reject(new Error(nameProblem(v ?? '')!)) : Promise.resolve()) }]}
        >
          <Input data-testid="storage-name-input" maxLength={255} autoComplete="off" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
