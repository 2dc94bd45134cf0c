import { CloseOutlined, ExclamationCircleFilled } from '@ant-design/icons';
import { formatFileSize, SYNC_STATE_LABELS, UPLOAD_PANEL_WIDTH, UPLOAD_TABLE_SCROLL_Y, type SyncJob } from '@suanli/contracts';
import { Alert, Button, Empty, Flex, Popconfirm, Progress, Skeleton, Tag, Typography } from 'antd';
import { isActive, useCancelSync, useSyncJobs } from './hooks';

const STATE_COLOR: Record<SyncJob['state'], string> = { QUEUED: 'default', RUNNING: 'processing', SUCCEEDED: 'success', FAILED: 'error', CANCELLED: 'default' };
const PROGRESS_STATUS: Record<SyncJob['state'], 'normal' | 'active' | 'success' | 'exception'> = {
  QUEUED: 'normal',
  RUNNING: 'active',
  SUCCEEDED: 'success',
  FAILED: 'exception',
  CANCELLED: 'normal',
};

/**
 * The source's own name: the last segment of its path (what the copy is called on the target), or — for a
 * dataset/model version the platform syncs for a task — its label (`数据集「MNIST」v1`).
 */
export const syncName = (job: SyncJob) => (job.kind === 'version' ? job.label : (job.sourcePath.split('/').filter(Boolean).at(-1) ?? job.sourcePath));

export function syncPercent(job: SyncJob): number {
  if (job.state === 'SUCCEEDED') return 100;
  if (job.bytesTotal <= 0) return 0;
  // Never 100 % before the copy is placed (the last bytes may still be verified).
  return Math.min(99, Math.floor((job.bytesDone / job.bytesTotal) * 100));
}

export interface SyncJobListProps {
  jobs: SyncJob[];
  onCancel?: (id: string) => Promise<unknown>;
}

/** The jobs, one block each: name and state, source → target, progress (bytes and files), and the job's message. */
export function SyncJobList({ jobs, onCancel }: SyncJobListProps) {
  if (jobs.length === 0) {
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        data-testid="sync-empty"
        description={
          <>
            暂无跨中心同步任务
            <br />
            在“存储管理”中选中一个文件或文件夹，点击“跨中心同步”即可创建
          </>
        }
      />
    );
  }
  return (
    <Flex vertical gap={12} role="list" aria-label="跨中心同步任务" style={{ maxHeight: UPLOAD_TABLE_SCROLL_Y + 40, overflowY: 'auto', paddingRight: 4 }}>
      {jobs.map((job) => (
        <SyncJobRow key={job.id} job={job} onCancel={onCancel} />
      ))}
    </Flex>
  );
}

function SyncJobRow({ job, onCancel }: { job: SyncJob; onCancel?: SyncJobListProps['onCancel'] }) {
  const name = syncName(job);
  // A version lives in the centers' asset areas, not in a folder of the user's: its centers say it all.
  const source = job.kind === 'version' ? job.sourceCenterName : `${job.sourceCenterName}：${job.sourcePath}`;
  const target = job.kind === 'version' ? `${job.targetCenterName}（供任务挂载）` : `${job.targetCenterName}：${job.targetPath}`;
  const bytes =
    job.bytesTotal > 0
      ? `${formatFileSize(job.bytesDone)} / ${formatFileSize(job.bytesTotal)}`
      : job.state === 'QUEUED'
        ? '等待开始'
        : job.state === 'RUNNING'
          ? '正在统计文件'
          : formatFileSize(job.bytesDone);
  const files = job.filesTotal > 0 ? `文件 ${job.filesDone} / ${job.filesTotal}` : null;
  return (
    <div
      role="listitem"
      data-testid="sync-row"
      data-id={job.id}
      data-name={name}
      data-state={job.state}
      style={{ borderBottom: '1px solid rgba(5,5,5,0.06)', paddingBottom: 8 }}
    >
      <Flex justify="space-between" align="center" gap={8}>
        <Typography.Text strong ellipsis={{ tooltip: name }} style={{ minWidth: 0 }}>
          {name}
        </Typography.Text>
        <Flex align="center" gap={4} style={{ flex: 'none' }}>
          <Tag color={STATE_COLOR[job.state]} variant="filled" data-testid="sync-state" style={{ marginInlineEnd: 0 }}>
            {SYNC_STATE_LABELS[job.state]}
          </Tag>
          {onCancel && isActive(job) && (
            <Popconfirm
              title="确定取消该同步任务吗？"
              description="取消后目标分中心不会出现该副本，如需同步请重新创建任务。"
              icon={<ExclamationCircleFilled aria-hidden style={{ color: '#faad14' }} />}
              okText="取消同步"
              cancelText="继续同步"
              okButtonProps={{ danger: true, ...({ 'data-testid': 'sync-cancel-ok' } as object) }}
              onConfirm={() => onCancel(job.id).catch(() => undefined)}
            >
              <Button type="link" size="small" icon={<CloseOutlined aria-hidden />} aria-label={`取消同步“${name}”`} title="取消同步" data-testid="sync-cancel">
                取消
              </Button>
            </Popconfirm>
          )}
        </Flex>
      </Flex>
      <Typography.Text type="secondary" ellipsis={{ tooltip: `源 ${source} → 目标 ${target}` }} style={{ display: 'block', fontSize: 12 }} data-testid="sync-route">
        源 {source} → 目标 {target}
      </Typography.Text>
      <Progress
        percent={syncPercent(job)}
        status={PROGRESS_STATUS[job.state]}
        size="small"
        // Text, not antd's check/cross icons (their labels are English).
        format={(p) => `${p}%`}
        style={{ margin: '4px 0 0' }}
        aria-label={`${name} 同步进度`}
        data-testid="sync-progress"
      />
      <Flex justify="space-between" gap={8} wrap>
        <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="sync-bytes">
          {bytes}
          {files && ` · ${files}`}
          {job.retries > 0 && ` · 已自动续传 ${job.retries} 次`}
        </Typography.Text>
      </Flex>
      {job.message && (
        <Typography.Text type={job.state === 'FAILED' ? 'danger' : 'secondary'} style={{ display: 'block', fontSize: 12 }} data-testid="sync-message">
          {job.message}
        </Typography.Text>
      )}
    </div>
  );
}

/** The task panel's 跨中心同步 section, bound to the caller's jobs. */
export function SyncPanel() {
  const { jobs, isLoading, error, refetch } = useSyncJobs();
  const cancel = useCancelSync();
  return (
    <div data-testid="sync-panel" style={{ width: UPLOAD_PANEL_WIDTH, maxWidth: 'calc(100vw - 32px)' }}>
      {error && jobs.length === 0 ? (
        <Alert
          type="warning"
          showIcon
          title="无法获取同步任务"
          description={error instanceof Error ? error.message : undefined}
          action={
            <Button size="small" onClick={() => void refetch()}>
              重试
            </Button>
          }
        />
      ) : isLoading ? (
        <Skeleton active paragraph={{ rows: 3 }} />
      ) : (
        <SyncJobList jobs={jobs} onCancel={(id) => cancel.mutateAsync(id)} />
      )}
    </div>
  );
}
