import { InboxOutlined } from '@ant-design/icons';
import { theme, Typography } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { isFileDrag } from '../collect';

export interface DropZoneProps {
  disabled?: boolean;
  /** Called inside the drop handler: the DataTransfer is only readable synchronously there. */
  onDrop: (dt: DataTransfer) => void;
  children: ReactNode;
}

/** Accepts files and whole folders dropped from the desktop onto the listing, with a visible target. */
export function DropZone({ disabled, onDrop, children }: DropZoneProps) {
  const { token } = theme.useToken();
  const [over, setOver] = useState(false);
  // dragenter/dragleave fire for every child element; count them so the overlay does not flicker.
  const depth = useRef(0);

  // A file dropped beside the target would make the browser open it and leave the page, cancelling every
  // running upload; while this page is shown such drops are swallowed.
  useEffect(() => {
    const swallow = (e: DragEvent) => {
      if (isFileDrag(e.dataTransfer)) e.preventDefault();
    };
    window.addEventListener('dragover', swallow);
    window.addEventListener('drop', swallow);
    return () => {
      window.removeEventListener('dragover', swallow);
      window.removeEventListener('drop', swallow);
    };
  }, []);

  return (
    <div
      data-testid="storage-dropzone"
      style={{ position: 'relative' }}
      onDragEnter={(e) => {
        if (disabled || !isFileDrag(e.dataTransfer)) return;
        e.preventDefault();
        depth.current++;
        setOver(true);
      }}
      onDragOver={(e) => {
        if (disabled || !isFileDrag(e.dataTransfer)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      }}
      onDrop={(e) => {
        depth.current = 0;
        setOver(false);
        if (disabled) return;
        e.preventDefault();
        onDrop(e.dataTransfer);
      }}
    >
      {children}
      {over && (
        <div
          style={{
            position: 'absolute',
            inset: 0,
            zIndex: 10,
            display: 'flex',
            flexDirection: 'column',
            alignItems: 'center',
            justifyContent: 'center',
            gap: 8,
            border: `2px dashed ${token.colorPrimary}`,
            borderRadius: token.borderRadiusLG,
            background: 'rgba(240, 247, 255, 0.94)',
            pointerEvents: 'none',
          }}
        >
          <InboxOutlined style={{ fontSize: 40, color: token.colorPrimary }} />
          <Typography.Text strong>松开鼠标，上传到当前文件夹</Typography.Text>
          <Typography.Text type="secondary">支持多个文件与整个文件夹</Typography.Text>
        </div>
      )}
    </div>
  );
}
