import type { JobState, TaskEvent } from '@suanli/contracts';
import { Empty, Timeline, Typography } from 'antd';
import { useJobStates } from '../../app/dicts';
import { formatTime } from '../time';

const COLOR: Partial<Record<JobState, string>> = {
  RUNNING: 'blue',
  SUCCEEDED: 'green',
  SUBMIT_FAILED: 'red',
  FAILED: 'red',
  UNDERPOWERED: 'red',
  STOPPED: 'gray',
  STOPPING: 'gray',
  QUEUED: 'orange',
};

/** 状态变化: every state the task went through, oldest first, with the time and the reason. */
export function TaskTimeline({ events, testIdPrefix }: { events: TaskEvent[]; testIdPrefix: string }) {
  const states = useJobStates();
  if (!events.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无状态变化记录" />;
  const sorted = [...events].sort((a, b) => a.time - b.time);
  return (
    <div data-testid={`${testIdPrefix}-timeline`}>
      <Timeline
        items={sorted.map((e, i) => ({
          key: `${e.time}-${i}`,
          color: COLOR[e.state] ?? 'blue',
          content: (
            <div data-testid={`${testIdPrefix}-event`} data-state={e.state}>
              <Typography.Text strong>{states.labels[e.state] ?? e.state}</Typography.Text>
              <Typography.Text type="secondary" style={{ marginInlineStart: 8, fontSize: 12 }}>
                {formatTime(e.time)}
              </Typography.Text>
              {e.reason && (
                <Typography.Paragraph type="secondary" style={{ margin: '2px 0 0', fontSize: 13 }}>
                  {e.reason}
                </Typography.Paragraph>
              )}
            </div>
          ),
        }))}
      />
    </div>
  );
}
