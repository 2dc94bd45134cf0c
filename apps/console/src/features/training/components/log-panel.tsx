import { DownloadOutlined } from '@ant-design/icons';
import type { JobState } from '@suanli/contracts';
import { Alert, Badge, Button, Card, Space, Typography } from 'antd';
import { useLayoutEffect, useRef, useState } from 'react';
import { trainingTasks } from '../api';
import { useLogFollow, type LogReader } from '../follow';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';

/** Where a task family's log calls live (training's by default; 科学计算 passes its own). */
export interface LogSource {
  read: LogReader;
  download: (id: string, fileName: string) => Promise<void>;
}
const TRAINING_LOG: LogSource = { read: trainingTasks.readLog, download: trainingTasks.downloadLog };

interface LogPanelProps {
  taskId: string;
  taskName: string;
  state: JobState;
  source?: LogSource;
  /** `<prefix>-log` on the text, `<prefix>-log-download` on the button. */
  testIdPrefix?: string;
}

/**
 * 运行日志: the task's stdout/stderr, followed while it runs and scrolled to the end unless the reader
 * scrolled up; 下载日志 saves the whole file.
 */
export function LogPanel({ taskId, taskName, state, source = TRAINING_LOG, testIdPrefix = 'training' }: LogPanelProps) {
  const log = useLogFollow(taskId, state, source.read);
  const box = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  const [downloading, setDownloading] = useState(false);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [log.text]);

  const download = async () => {
    setDownloading(true);
    try {
      await source.download(taskId, `${taskName || taskId}.log`);
    } catch {
      // The pipeline showed why.
    } finally {
      setDownloading(false);
    }
  };

  return (
    <Card
      title={
        <Space>
          运行日志
          {log.following && <Badge status="processing" text={<Typography.Text type="secondary">实时跟踪中</Typography.Text>} />}
        </Space>
      }
      extra={
        <Button type="link" icon={<DownloadOutlined />} loading={downloading} onClick={download} data-testid={`${testIdPrefix}-log-download`}>
          下载日志
        </Button>
      }
      styles={{ body: { padding: 0 } }}
    >
      {log.error && <Alert type="warning" banner title={`日志读取失败：${log.error}`} />}
      {log.omitted && <Alert type="info" banner title="日志较长，仅显示最近的部分，完整日志请下载。" />}
      <pre
        ref={box}
        data-testid={`${testIdPrefix}-log`}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
        style={{
          margin: 0,
          height: 420,
          overflow: 'auto',
          padding: 12,
          background: '#0f172a',
          color: '#e2e8f0',
          fontFamily: MONO,
          fontSize: 12,
          lineHeight: 1.6,
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          borderRadius: '0 0 8px 8px',
        }}
      >
        {log.text || (log.following ? '等待日志输出…' : state === 'CREATED' || state === 'SUBMITTING' || state === 'QUEUED' ? '任务尚未开始运行，暂无日志。' : '暂无日志。')}
      </pre>
    </Card>
  );
}
