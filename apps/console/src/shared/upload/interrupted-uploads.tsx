/**
 * 中断的上传 (issue 22 item 3): after a reload the upload store is empty, but the file services still hold the
 * chunks of every upload that was interrupted. The header's task panel lists them per center with
 * 继续 (the user picks the file again; it must have the same name and size, and the upload resumes from the
 * staged chunks) and 放弃 (the staged chunks are removed).
 */
import { formatFileSize } from '@suanli/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Popconfirm, Progress, Typography } from 'antd';
import { useRef, useState, type ChangeEvent } from 'react';
import { queryKeys } from '../../app/query-keys';
import { type InterruptedUpload, type InterruptedUploads } from './interrupted-query';
import { discardStaged } from './staged';
import { useUploadStore } from './store';

export { useInterruptedUploads, type InterruptedUpload, type InterruptedUploads, type UploadCenter } from './interrupted-query';

/** The panel's section: one row per interrupted upload, with 继续 and 放弃; nothing when there is none. */
export function InterruptedUploadList({ items, unreachable }: InterruptedUploads) {
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const picking = useRef<InterruptedUpload | null>(null);
  /** Why the file picked for an upload cannot continue it, by identifier. */
  const [mismatch, setMismatch] = useState<Record<string, string>>({});
  const [discarding, setDiscarding] = useState<string | null>(null);

  if (items.length === 0 && unreachable.length === 0) return null;

  const refresh = (centerId: string) => queryClient.invalidateQueries({ queryKey: queryKeys.storage.staged(centerId) });

  const pick = (u: InterruptedUpload) => {
    picking.current = u;
    setMismatch(({ [u.identifier]: _, ...rest }) => rest);
    input.current?.click();
  };

  const picked = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    const u = picking.current;
    // The same file may be picked again after a mismatch: the input must report a change each time.
    e.target.value = '';
    picking.current = null;
    if (!file || !u || u.filename === undefined || u.path === undefined) return;
    // The file service stores names in NFC; a file system may hand over another spelling of the same name.
    if (file.name.normalize('NFC') !== u.filename || file.size !== u.totalSize) {
      setMismatch((m) => ({
        ...m,
        [u.identifier]: `所选文件“${file.name}”（${formatFileSize(file.size)}）与中断的上传“${u.filename}”（${formatFileSize(u.totalSize)}）不一致，请选择同一文件`,
      }));
      return;
    }
    useUploadStore.getState().enqueue([{ file, dir: u.path, identifier: u.identifier }], {
      baseUrl: u.center.fileServiceUrl,
      centerId: u.center.id,
      centerName: u.space ? `${u.center.name} · 团队空间` : u.center.name,
      // Into the team's folder it was going to (the header again; refused if the user left the team).
      space: u.space,
      onUploaded: () => void queryClient.invalidateQueries({ queryKey: queryKeys.storage.center(u.center.id) }),
    });
  };

  const discard = async (u: InterruptedUpload) => {
    setDiscarding(u.identifier);
    try {
      await discardStaged(u.center.fileServiceUrl, u.identifier);
    } catch {
      // The transport showed why.
    } finally {
      setDiscarding(null);
      await refresh(u.center.id);
    }
  };

  return (
    <section data-testid="upload-interrupted" aria-label="中断的上传" style={{ marginBottom: 12 }}>
      <input ref={input} type="file" hidden data-testid="upload-interrupted-input" onChange={picked} />
      <Typography.Text strong>中断的上传（{items.length}）</Typography.Text>
      <Typography.Paragraph type="secondary" style={{ margin: '2px 0 6px', fontSize: 12 }}>
        点击“继续”并选择同一文件，即从中断处接着上传；超过 24 小时没有新进展的上传会被自动清除。
      </Typography.Paragraph>
      {items.map((u) => (
        <InterruptedRow
          key={`${u.center.id}/${u.identifier}`}
          upload={u}
          mismatch={mismatch[u.identifier]}
          discarding={discarding === u.identifier}
          onContinue={() => pick(u)}
          onDiscard={() => discard(u)}
        />
      ))}
      {unreachable.map((c) => (
        <Typography.Paragraph key={c.id} type="warning" style={{ margin: '4px 0 0', fontSize: 12 }} data-testid="upload-interrupted-unreachable">
          暂时无法读取{c.name}的中断上传，请稍后重新打开本面板
        </Typography.Paragraph>
      ))}
    </section>
  );
}

interface RowProps {
  upload: InterruptedUpload;
  mismatch?: string;
  discarding: boolean;
  onContinue(): void;
  onDiscard(): void;
}

function InterruptedRow({ upload: u, mismatch, discarding, onContinue, onDiscard }: RowProps) {
  const known = u.filename !== undefined && u.path !== undefined;
  const percent = u.totalSize === 0 ? 0 : Math.floor((u.uploadedBytes / u.totalSize) * 100);
  const where = `${u.center.name}${u.space ? ' · 团队空间' : ''}：${u.path ?? '（未记录目标文件夹）'}`;
  return (
    <div data-testid="upload-interrupted-row" data-name={u.filename ?? ''} style={{ padding: '6px 0', borderTop: '1px solid rgba(5, 5, 5, 0.06)' }}>
      <Flex align="center" gap={8}>
        <div style={{ flex: 1, minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: u.filename }} style={{ display: 'block' }} data-testid="upload-interrupted-name">
            {u.filename ?? '（未记录文件名）'}
          </Typography.Text>
          <Typography.Text type="secondary" ellipsis={{ tooltip: where }} style={{ display: 'block', fontSize: 12 }}>
            {where}
          </Typography.Text>
        </div>
        <Flex gap={0} style={{ flex: 'none' }}>
          <Button type="link" size="small" disabled={!known} title={known ? '选择同一文件，从中断处继续上传' : '该上传未记录文件名和目标文件夹，无法继续，请放弃后重新上传'} onClick={onContinue} data-testid="upload-interrupted-continue">
            继续
          </Button>
          <Popconfirm title="放弃这个上传？" description="服务器上已收到的部分将被删除" okText="放弃" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={onDiscard}>
            <Button type="link" size="small" danger loading={discarding} data-testid="upload-interrupted-discard">
              放弃
            </Button>
          </Popconfirm>
        </Flex>
      </Flex>
      <Flex align="center" gap={8}>
        <Progress percent={percent} size="small" showInfo={false} style={{ flex: 1, margin: 0 }} aria-label="已上传比例" />
        <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }} data-testid="upload-interrupted-progress">
          已上传 {formatFileSize(u.uploadedBytes)} / {formatFileSize(u.totalSize)}
        </Typography.Text>
      </Flex>
      {mismatch && (
        <Typography.Text type="danger" style={{ display: 'block', fontSize: 12 }} data-testid="upload-interrupted-mismatch">
          {mismatch}
        </Typography.Text>
      )}
    </div>
  );
}
