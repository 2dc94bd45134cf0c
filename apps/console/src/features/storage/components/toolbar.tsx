import { CloudSyncOutlined, CopyOutlined, DeleteOutlined, DownOutlined, DownloadOutlined, DragOutlined, FolderAddOutlined, FolderOpenOutlined, UploadOutlined } from '@ant-design/icons';
import { Button, Dropdown, Flex, Input, Tooltip } from 'antd';
import { useRef } from 'react';
import { useBreakpoint } from '../../../shared/hooks/use-breakpoint';

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
  /** 跨中心同步 of the one selected item; absent (no button) when there is no other center. */
  onSync?: () => void;
  /** Why 跨中心同步 cannot take the selection (shown as the button's tooltip), or null when it can. */
  syncBlocked?: string | null;
  onDelete: () => void;
  onSearch: (keyword: string) => void;
}

/**
 * The file manager's actions. The hidden inputs are what e2e drives with `setInputFiles`. Below lg (992 px)
 * the eight buttons would take two or three rows: there the two uploads share a 上传 menu and the actions on
 * the selection (下载, 移动, 复制, 跨中心同步, 删除) a 批量操作 menu, next to 新建文件夹, and the search takes the full width.
 */
export function Toolbar(props: ToolbarProps) {
  const screens = useBreakpoint();
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const none = props.selectedCount === 0 || props.disabled;
  const take = (input: HTMLInputElement, handle: (files: File[]) => void) => {
    const files = Array.from(input.files ?? []);
    // Reset so choosing the same files again still fires a change.
    input.value = '';
    if (files.length) handle(files);
  };
  const compact = !screens.lg;
  const syncOff = none || Boolean(props.syncBlocked);
  const buttons = compact ? (
    <>
      <Dropdown
        trigger={['click']}
        disabled={props.disabled}
        menu={{
          items: [
            { key: 'files', icon: <UploadOutlined />, label: '上传文件' },
            { key: 'folder', icon: <FolderOpenOutlined />, label: '上传文件夹' },
          ],
          onClick: ({ key }) => (key === 'files' ? filesInput : folderInput).current?.click(),
        }}
      >
        <Button type="primary" icon={<UploadOutlined />} data-testid="storage-upload-menu">
          上传 <DownOutlined />
        </Button>
      </Dropdown>
      <Button icon={<FolderAddOutlined />} disabled={props.disabled} data-testid="storage-mkdir" onClick={props.onMkdir}>
        新建文件夹
      </Button>
      <Dropdown
        trigger={['click']}
        disabled={none}
        menu={{
          items: [
            { key: 'download', icon: <DownloadOutlined />, label: '下载' },
            { key: 'move', icon: <DragOutlined />, label: '移动' },
            { key: 'copy', icon: <CopyOutlined />, label: '复制' },
            ...(props.onSync ? [{ key: 'sync', icon: <CloudSyncOutlined />, label: <span data-testid="sync-action">跨中心同步</span>, disabled: syncOff }] : []),
            { key: 'delete', icon: <DeleteOutlined />, label: '删除', danger: true },
          ],
          onClick: ({ key }) => {
            const actions: Record<string, (() => void) | undefined> = { download: props.onDownload, move: props.onMove, copy: props.onCopy, sync: props.onSync, delete: props.onDelete };
            actions[key]?.();
          },
        }}
      >
        <Button disabled={none} data-testid="storage-batch-menu">
          批量操作{props.selectedCount > 0 ? `（${props.selectedCount}）` : ''} <DownOutlined />
        </Button>
      </Dropdown>
    </>
  ) : (
    <>
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
      {props.onSync && (
        <Tooltip title={none ? undefined : props.syncBlocked}>
          <Button icon={<CloudSyncOutlined />} disabled={syncOff} data-testid="sync-action" onClick={props.onSync}>
            跨中心同步
          </Button>
        </Tooltip>
      )}
      <Button danger icon={<DeleteOutlined />} disabled={none} data-testid="storage-delete" onClick={props.onDelete}>
        删除
      </Button>
    </>
  );
  return (
    <Flex justify="space-between" align="center" wrap gap={12} style={{ marginBottom: 12 }}>
      <Flex wrap gap={8}>
        {buttons}
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
        style={{ width: screens.md ? 260 : '100%' }}
        data-testid="storage-search"
      />
    </Flex>
  );
}
