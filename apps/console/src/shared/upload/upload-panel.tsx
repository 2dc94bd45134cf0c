import { CloseOutlined, RedoOutlined } from '@ant-design/icons';
import { formatFileSize, UPLOAD_EMPTY_HINT, UPLOAD_PANEL_WIDTH, UPLOAD_REFRESH_WARNING, UPLOAD_TABLE_SCROLL_Y } from '@suanli/contracts';
import { Alert, Button, Flex, Progress, Table, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, type HTMLAttributes } from 'react';
import { useBreakpoint } from '../hooks/use-breakpoint';
import { InterruptedUploadList, type InterruptedUploads } from './interrupted-uploads';
import { CANCELLED_MESSAGE, useUploadStore, type UploadTask } from './store';

export const STATUS_LABELS = { waiting: '等待中', error: '失败', cancelled: CANCELLED_MESSAGE, success: '成功' } as const;

export interface UploadTaskTableProps {
  tasks: UploadTask[];
  onRetry?: (id: string) => void;
  onCancel?: (id: string) => void;
}

/** The panel's table: draws tasks, nothing else. */
export function UploadTaskTable({ tasks, onRetry, onCancel }: UploadTaskTableProps) {
  // On a phone the panel is ~340 px: four columns left the name and the path a few pixels each, so the
  // target folder goes under the name there and the fixed columns narrow.
  const narrow = !useBreakpoint().sm;
  const columns = useMemo<ColumnsType<UploadTask>>(() => {
    const where = (t: UploadTask) => (t.centerName ? `${t.centerName}：${t.path}` : t.path);
    const name: ColumnsType<UploadTask>[number] = narrow
      ? {
          title: '文件名',
          dataIndex: 'name',
          key: 'name',
          render: (value: string, t) => (
            <>
              <Typography.Text ellipsis={{ tooltip: value }} style={{ display: 'block' }}>
                {value}
              </Typography.Text>
              <Typography.Text type="secondary" ellipsis={{ tooltip: where(t) }} style={{ display: 'block', fontSize: 12 }}>
                {t.path}
              </Typography.Text>
            </>
          ),
        }
      : { title: '文件名', dataIndex: 'name', key: 'name', ellipsis: { showTitle: true } };
    const path: ColumnsType<UploadTask> = narrow
      ? []
      : [
          {
            title: '目标路径',
            dataIndex: 'path',
            key: 'path',
            ellipsis: true,
            render: (value: string, t) => (
              <Tooltip title={where(t)}>
                <span>{value}</span>
              </Tooltip>
            ),
          },
        ];
    return [
      name,
      ...path,
      { title: '文件大小', dataIndex: 'size', key: 'size', width: narrow ? 84 : 110, render: (size: number) => formatFileSize(size) },
      {
        title: '状态',
        key: 'status',
        width: narrow ? 120 : 190,
        render: (_: unknown, t) => <TaskStatus task={t} onRetry={onRetry} onCancel={onCancel} />,
      },
    ];
  }, [narrow, onRetry, onCancel]);
  return (
    <Table<UploadTask>
      size="small"
      rowKey="id"
      columns={columns}
      dataSource={tasks}
      pagination={false}
      scroll={{ y: UPLOAD_TABLE_SCROLL_Y }}
      locale={{ emptyText: UPLOAD_EMPTY_HINT }}
      onRow={(t) => ({ 'data-testid': 'upload-row', 'data-name': t.name, 'data-status': t.status }) as HTMLAttributes<HTMLElement>}
    />
  );
}

function TaskStatus({ task, onRetry, onCancel }: { task: UploadTask } & Pick<UploadTaskTableProps, 'onRetry' | 'onCancel'>) {
  const cancel = onCancel && (
    <Button
      type="link"
      size="small"
      icon={<CloseOutlined />}
      aria-label="取消"
      title="取消"
      data-testid="upload-cancel"
      onClick={() => onCancel(task.id)}
    />
  );
  switch (task.status) {
    case 'waiting':
      return (
        <Flex align="center" gap={4}>
          <Typography.Text type="secondary">{STATUS_LABELS.waiting}</Typography.Text>
          {cancel}
        </Flex>
      );
    case 'success':
      return <Typography.Text type="success">{STATUS_LABELS.success}</Typography.Text>;
    case 'error':
      return (
        <Flex align="center" gap={4}>
          {/* A task the user stopped did not fail: it says so, in grey, and can still be resumed. */}
          {task.error === CANCELLED_MESSAGE ? (
            <Typography.Text type="secondary" data-testid="upload-cancelled">
              {STATUS_LABELS.cancelled}
            </Typography.Text>
          ) : (
            <Tooltip title={task.error}>
              <Typography.Text type="danger">{STATUS_LABELS.error}</Typography.Text>
            </Tooltip>
          )}
          {onRetry && (
            <Button type="link" size="small" icon={<RedoOutlined />} data-testid="upload-retry" onClick={() => onRetry(task.id)}>
              重试
            </Button>
          )}
        </Flex>
      );
    default:
      return (
        <Flex align="center" gap={4}>
          <Progress percent={task.progress} size="small" status="active" style={{ flex: 1, margin: 0 }} />
          {cancel}
        </Flex>
      );
  }
}

/** The popover's content, bound to the upload store; `interrupted`: what the file services still hold (interrupted-uploads.tsx). */
export function UploadPanel({ interrupted }: { interrupted?: InterruptedUploads }) {
  const tasks = useUploadStore((s) => s.tasks);
  const retry = useUploadStore((s) => s.retry);
  const cancel = useUploadStore((s) => s.cancel);
  return (
    <div data-testid="upload-panel" style={{ width: UPLOAD_PANEL_WIDTH, maxWidth: 'calc(100vw - 32px)' }}>
      <Alert type="warning" showIcon title={UPLOAD_REFRESH_WARNING} style={{ marginBottom: 8 }} />
      {interrupted && <InterruptedUploadList {...interrupted} />}
      <UploadTaskTable tasks={tasks} onRetry={retry} onCancel={cancel} />
    </div>
  );
}

/** 清除已完成, shown while a finished upload is listed (the task panel's upload tab). */
export function UploadClearFinished() {
  const hasFinished = useUploadStore((s) => s.tasks.some((t) => t.status === 'success'));
  const clearFinished = useUploadStore((s) => s.clearFinished);
  return hasFinished ? (
    <Button type="link" size="small" onClick={clearFinished} data-testid="upload-clear-finished">
      清除已完成
    </Button>
  ) : null;
}
