import { type FileEntry, type SubCenter, type SyncCreate } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Form, Modal, Select, Typography } from 'antd';
import { queryKeys } from '../../app/query-keys';
import { FolderInput } from '../storage/components/folder-input';
import { useModalSubmit } from '../storage/components/use-modal-submit';
import { joinPath, normalizePath, ROOT } from '../storage/paths';
import { createSync } from './api';
import { noteSyncCreated } from './hooks';

const STATUS_TEXT: Record<SubCenter['status'], string | null> = { online: null, maintenance: '维护中', offline: '下线' };

export interface SyncModalProps {
  /** The center whose storage holds the source (excluded from the targets). */
  source: SubCenter;
  centers: SubCenter[];
  /** The one file or folder to copy. */
  entry: FileEntry;
  onClose: () => void;
}

interface Values {
  targetCenterId: string;
  targetDir: string;
}

/**
 * 跨中心同步: copies one file or folder of this center's storage into the same user's storage on another
 * center, file service to file service. The job runs on the server (resumes after interruptions, verified
 * per file); the header's task panel shows its progress. A refusal (2350, 2352, a missing folder, …) is the
 * pipeline's toast with the server's message, and the dialog stays open.
 */
export function SyncModal({ source, centers, entry, onClose }: SyncModalProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const targets = centers.filter((c) => c.id !== source.id);
  const firstOnline = targets.find((c) => c.status === 'online');
  const targetCenterId = Form.useWatch('targetCenterId', form) ?? firstOnline?.id;
  const targetDir = Form.useWatch('targetDir', form) ?? ROOT;
  const target = targets.find((c) => c.id === targetCenterId);

  const create = useMutation({
    mutationFn: (body: SyncCreate) => createSync(body),
    onSuccess: () => {
      message.success('已创建同步任务');
      // The header's task panel opens on its sync tab; its lists are asked again for the new job.
      noteSyncCreated();
      void queryClient.invalidateQueries({ queryKey: queryKeys.sync.root });
    },
  });
  const { busy, run } = useModalSubmit((body: SyncCreate) => create.mutateAsync(body), onClose);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return; // shown under the fields
    }
    await run({ sourceCenterId: source.id, sourcePath: entry.path, targetCenterId: values.targetCenterId, targetDir: normalizePath(values.targetDir.trim()) });
  };

  return (
    <Modal
      open
      title="跨中心同步"
      okText="确定"
      cancelText="取消"
      confirmLoading={busy}
      onOk={submit}
      onCancel={onClose}
      destroyOnHidden
      okButtonProps={{ disabled: targets.length === 0, ...({ 'data-testid': 'sync-ok' } as object) }}
    >
      <div data-testid="sync-modal">
        <Typography.Paragraph type="secondary">
          将{entry.type === 'dir' ? '文件夹' : '文件'}
          <Typography.Text code data-testid="sync-source">
            {source.name}：{entry.path}
          </Typography.Text>
          复制到另一个算力分中心的个人存储，在那里的任务中直接使用。
        </Typography.Paragraph>
        {targets.length === 0 ? (
          <Alert type="warning" showIcon title="没有其他算力分中心可作为同步目标" />
        ) : (
          <Form form={form} layout="vertical" preserve={false} initialValues={{ targetCenterId: firstOnline?.id, targetDir: ROOT }}>
            <Form.Item name="targetCenterId" label="目标分中心" rules={[{ required: true, message: '请选择目标分中心' }]}>
              <Select
                data-testid="sync-target-center"
                placeholder="选择目标分中心"
                allowClear={false}
                // Each center has its own tree: a folder chosen on another one means nothing here.
                onChange={() => form.setFieldValue('targetDir', ROOT)}
                options={targets.map((c) => ({
                  value: c.id,
                  label: STATUS_TEXT[c.status] ? `${c.name}（${STATUS_TEXT[c.status]}）` : c.name,
                  disabled: c.status !== 'online',
                }))}
              />
            </Form.Item>
            <Form.Item
              name="targetDir"
              label="目标目录"
              rules={[
                { required: true, whitespace: true, message: '请选择目标目录' },
                { pattern: /^\s*\//, message: '目录以 / 开头' },
              ]}
            >
              <FolderInput center={target} testId="sync-target-dir" pickTitle="选择目标目录" />
            </Form.Item>
          </Form>
        )}
        {target && (
          <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
            同步完成后，副本将出现在{target.name}的
            <Typography.Text code data-testid="sync-target-path">
              {joinPath(normalizePath(targetDir.trim()), entry.name)}
            </Typography.Text>
            （未完成前不会出现）；传输中断后会自动从断点继续，进度可在右上角的任务面板中查看。
          </Typography.Paragraph>
        )}
      </div>
    </Modal>
  );
}
