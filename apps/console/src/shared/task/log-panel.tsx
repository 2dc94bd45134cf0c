import { DownloadOutlined } from '@ant-design/icons';
import type { TaskDetail } from '@suanli/contracts';
import { Alert, Badge, Button, Card, Space, Typography } from 'antd';
import { useLayoutEffect, useRef, useState } from 'react';
import { MONO } from '../ui/mono';
import { useLogFollow } from './follow';
import type { TaskFamily } from './task-family';

/**
 * 运行日志: the task's stdout/stderr, followed while it runs and scrolled to the end unless the reader
 * scrolled up; 下载日志 saves the whole file. Testids `<family>-log`, `<family>-log-download`.
 */
export function LogPanel({ task, family }: { task: Pick<TaskDetail, 'id' | 'name' | 'state'>; family: TaskFamily }) {
  const log = useLogFollow(task.id, task.state, family.calls.readLog);
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
      await family.calls.downloadLog(task.id, `${task.name || task.id}.log`);
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
        <Button type="link" icon={<DownloadOutlined />} loading={downloading} onClick={download} data-testid={`${family.testId}-log-download`}>
          下载日志
        </Button>
      }
      styles={{ body: { padding: 0 } }}
    >
      {log.error && <Alert type="warning" banner title={`日志读取失败：${log.error}`} />}
      {log.omitted && <Alert type="info" banner title="日志较长，仅显示最近的部分，完整日志请下载。" />}
      <pre
        ref={box}
        data-testid={`${family.testId}-log`}
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
        {log.text || (log.following ? '等待日志输出…' : task.state === 'CREATED' || task.state === 'SUBMITTING' || task.state === 'QUEUED' ? '任务尚未开始运行，暂无日志。' : '暂无日志。')}
      </pre>
    </Card>
  );
}
