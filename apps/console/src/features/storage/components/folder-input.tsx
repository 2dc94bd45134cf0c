import { FolderOpenOutlined } from '@ant-design/icons';
import type { SubCenter } from '@suanli/contracts';
import { Button, Input, Space } from 'antd';
import { useMemo, useState } from 'react';
import { createFileApi } from '../api';
import { DirPickerModal } from './dir-picker-modal';

interface FolderInputProps {
  value?: string;
  onChange?: (v: string) => void;
  /** Whose storage the picker browses (the chosen center, or the one 智能调度 picked). */
  center: SubCenter | undefined;
  /** `<id>` on the input, `<id>-pick` on the picker button. */
  testId: string;
  placeholder?: string;
  /** The picker's title, before the center's name. */
  pickTitle?: string;
}

/**
 * A folder of the user's home on a center (`/` = the home), typed or chosen in a folder tree listed by that
 * center's file service (the storage page's picker): task working directories, template path parameters,
 * the folders datasets and models are made from.
 */
export function FolderInput({ value, onChange, center, testId, placeholder = '/', pickTitle = '选择工作目录' }: FolderInputProps) {
  const [open, setOpen] = useState(false);
  const api = useMemo(() => (center ? createFileApi(center.fileServiceUrl) : undefined), [center]);
  return (
    <>
      <Space.Compact style={{ width: '100%' }}>
        <Input value={value} onChange={(e) => onChange?.(e.target.value)} placeholder={placeholder} style={{ fontFamily: 'monospace' }} data-testid={testId} />
        <Button icon={<FolderOpenOutlined />} disabled={!api} onClick={() => setOpen(true)} data-testid={`${testId}-pick`}>
          选择
        </Button>
      </Space.Compact>
      {open && api && center && (
        <DirPickerModal
          open
          title={`${pickTitle}（${center.name}）`}
          okText="选择"
          loadDirs={(path) => api.listDirs(path)}
          onSubmit={async (dir) => onChange?.(dir)}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
