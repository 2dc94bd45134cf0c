import { PlusOutlined } from '@ant-design/icons';
import { WORKORDER_ATTACHMENT_MAX_BYTES, WORKORDER_ATTACHMENTS_MAX, type WorkOrder, type WorkOrderAttachment, type WorkOrderState } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Image, Space, Spin, Tag, Upload, type UploadFile, type UploadProps } from 'antd';
import { useEffect, useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { fetchAttachment, uploadAttachment } from './api';

export const STATE_COLORS: Record<WorkOrderState, string> = { PENDING: 'orange', PROCESSING: 'blue', RESOLVED: 'green', CLOSED: 'default' };

/** The state as a coloured tag (labels from the dict `workorder_states`). */
export function StateTag({ state, labels }: { state: WorkOrderState; labels: Record<string, string> }) {
  return (
    <Tag color={STATE_COLORS[state]} style={{ marginInlineEnd: 0 }} data-testid="wo-state" data-state={state}>
      {labels[state] ?? state}
    </Tag>
  );
}

/** An operator answered and the owner has not: what the owner's list shows as 待您回复. */
export const awaitsOwner = (o: Pick<WorkOrder, 'lastReplyBy' | 'state'>) => o.lastReplyBy === 'operator' && o.state !== 'CLOSED';

export const detailPath = (id: string) => `/workorder/detail/${encodeURIComponent(id)}`;

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** The server sniffs the bytes too; checking here saves the upload and explains the rule at once. */
export function screenshotProblem(file: { type: string; size: number }): string | null {
  if (!IMAGE_TYPES.includes(file.type)) return '截图仅支持 PNG、JPG、WEBP 格式的图片';
  if (file.size > WORKORDER_ATTACHMENT_MAX_BYTES) return `每张截图不能超过 ${WORKORDER_ATTACHMENT_MAX_BYTES / 1024 / 1024} MB`;
  return null;
}

/** The ids of the screenshots uploaded so far (undefined when none, as the contract's optional field). */
export function uploadedIds(files: UploadFile[] | undefined): string[] | undefined {
  const ids = (files ?? []).map((f) => (f.response as WorkOrderAttachment | undefined)?.id).filter((id): id is string => Boolean(id));
  return ids.length ? ids : undefined;
}

export const uploading = (files: UploadFile[] | undefined) => (files ?? []).some((f) => f.status === 'uploading');

/**
 * Screenshots of one message (a Form control: value is the upload list). Each is uploaded to
 * `POST /attachments` as soon as it is picked; the message then sends their ids.
 */
export function ScreenshotField({ value, onChange, testId }: { value?: UploadFile[]; onChange?: (files: UploadFile[]) => void; testId: string }) {
  const files = value ?? [];
  const customRequest: UploadProps['customRequest'] = ({ file, onSuccess, onError }) => {
    uploadAttachment(file as File).then(
      (attachment) => onSuccess?.(attachment),
      (error: Error) => onError?.(error),
    );
  };
  return (
    <Upload
      listType="picture-card"
      accept={IMAGE_TYPES.join(',')}
      multiple
      fileList={files}
      customRequest={customRequest}
      beforeUpload={(file, batch) => {
        const problem = screenshotProblem(file);
        if (problem) {
          toast.error(problem);
          return Upload.LIST_IGNORE;
        }
        if (files.length + batch.indexOf(file) >= WORKORDER_ATTACHMENTS_MAX) {
          toast.error(`每条消息最多 ${WORKORDER_ATTACHMENTS_MAX} 张截图`, 'wo-too-many');
          return Upload.LIST_IGNORE;
        }
        return true;
      }}
      // A failed upload is dropped from the list (the pipeline has shown the server's reason).
      onChange={({ fileList }) => onChange?.(fileList.filter((f) => f.status !== 'error'))}
      showUploadList={{ showPreviewIcon: false }}
      data-testid={testId}
    >
      {files.length < WORKORDER_ATTACHMENTS_MAX ? (
        <div>
          <PlusOutlined />
          <div style={{ marginTop: 4 }}>添加截图</div>
        </div>
      ) : null}
    </Upload>
  );
}

/** One screenshot, read through the pipeline (the route needs the token header) and shown from an object URL. */
function Screenshot({ attachment }: { attachment: WorkOrderAttachment }) {
  const bytes = useQuery({ queryKey: queryKeys.workorder.attachment(attachment.id), queryFn: () => fetchAttachment(attachment.id), staleTime: Infinity });
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!bytes.data) return;
    const u = URL.createObjectURL(bytes.data);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [bytes.data]);
  if (bytes.isError) {
    return (
      <div style={{ width: 88, height: 88, display: 'grid', placeItems: 'center', background: '#f5f5f5', borderRadius: 6, fontSize: 12, color: '#999' }}>
        截图加载失败
      </div>
    );
  }
  if (!url) {
    return (
      <div style={{ width: 88, height: 88, display: 'grid', placeItems: 'center', background: '#f5f5f5', borderRadius: 6 }}>
        <Spin size="small" />
      </div>
    );
  }
  return (
    <Image
      src={url}
      alt={attachment.name}
      width={88}
      height={88}
      style={{ objectFit: 'cover', borderRadius: 6, border: '1px solid #f0f0f0' }}
      preview={{ mask: '查看大图' }}
      data-testid="wo-shot"
    />
  );
}

/** A message's screenshots as thumbnails; a click opens them large (one preview group per message). */
export function Screenshots({ attachments }: { attachments: WorkOrderAttachment[] }) {
  if (!attachments.length) return null;
  return (
    <Image.PreviewGroup>
      <Space size={8} wrap data-testid="wo-shots">
        {attachments.map((a) => (
          <Screenshot key={a.id} attachment={a} />
        ))}
      </Space>
    </Image.PreviewGroup>
  );
}
