import { CopyOutlined, DeleteOutlined, DownloadOutlined, DragOutlined, FolderAddOutlined, FolderOpenOutlined, UploadOutlined } from '@ant-design/icons';
import { Button, Flex, Input } from 'antd';
import { useRef } from 'react';

export interface ToolbarProps {
  selectedCount: number;
  keyword: string;
  disabled?: boolean;
  onUploadFiles: (files: File[]) => void;
  /** Files picked through a folder chooser; each carries `webkitRelativePath`. */
  onUploadFolder: (files: File[]) => void;
  onMkdir: () => void;
  onDownload: () => void;
  onMove: () => void;
  onCopy: () => void;
  onDelete: () => void;
  onSearch: (keyword: string) => void;
}

/** The file manager's actions. The hidden inputs are what e2e drives with `setInputFiles`. */
export function Toolbar(props: ToolbarProps) {
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const none = props.selectedCount === 0 || props.disabled;
  const take = (input: HTMLInputElement, handle: (files: File[]) => void) => {
    const files = Array.from(input.files ?? []);
    // Reset so choosing the same files again still fires a change.
    input.value = '';
    if (files.length) handle(files);
  };
  return (
    <Flex justify="space-between" align="center" wrap gap={12} style={{ marginBottom: 12 }}>
      <Flex wrap gap={8}>
        <Button type="primary" icon={<UploadOutlined />} disabled={props.disabled} data-testid="storage-upload-files" onClick={() => filesInput.current?.click()}>
          上传文件
        </Button>
        <Button icon={<FolderOpenOutlined />} disabled={props.disabled} data-testid="storage-upload-folder" onClick={() => folderInput.current?.click()}>
          上传文件夹
        </Button>
        <Button icon={<FolderAddOutlined />} disabled={props.disabled} data-testid="storage-mkdir" onClick={props.onMkdir}>
          新建文件夹
        </Button>
        <Button icon={<DownloadOutlined />} disabled={none} data-testid="storage-download" onClick={props.onDownload}>
          下载
        </Button>
        <Button icon={<DragOutlined />} disabled={none} data-testid="storage-move" onClick={props.onMove}>
          移动
        </Button>
        <Button icon={<CopyOutlined />} disabled={none} data-testid="storage-copy" onClick={props.onCopy}>
          复制
        </Button>
        <Button danger icon={<DeleteOutlined />} disabled={none} data-testid="storage-delete" onClick={props.onDelete}>
          删除
        </Button>
        <input
          ref={filesInput}
          type="file"
          multiple
          hidden
          data-testid="storage-upload-input"
          onChange={(e) => take(e.currentTarget, props.onUploadFiles)}
        />
        <input
          ref={(el) => {
            folderInput.current = el;
            // Not in React's attribute types; every current browser supports it.
            el?.setAttribute('webkitdirectory', '');
          }}
          type="file"
          multiple
          hidden
          data-testid="storage-upload-folder-input"
          onChange={(e) => take(e.currentTarget, props.onUploadFolder)}
        />
      </Flex>
      <Input.Search
        allowClear
        placeholder="搜索当前文件夹"
        defaultValue={props.keyword}
        onSearch={(v) => props.onSearch(v.trim())}
        style={{ width: 260 }}
        data-testid="storage-search"
      />
    </Flex>
  );
}
