import { useQuery } from '@tanstack/react-query';
import { Alert, Descriptions, Drawer, Skeleton, Typography } from 'antd';
import { Link } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { getConsumeRecord } from './api';
import { TASK_KIND_LABELS, taskPath } from './records';

/**
 * One consume record (消费记录详情): which task drew how much from which compute on one day, over which span of
 * its run, and how the 卡时 follow from the billed cards — with a link to the task's own page.
 */
export function ConsumeDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const screens = useBreakpoint();
  const record = useQuery({ queryKey: queryKeys.billing.consume(id ?? ''), queryFn: () => getConsumeRecord(id!), enabled: Boolean(id) });
  const r = record.data;
  return (
    <Drawer open={Boolean(id)} onClose={onClose} title="消费记录详情" size={screens.sm ? 480 : '100%'} destroyOnHidden data-testid="consume-detail">
      {record.isError ? (
        <Alert type="error" showIcon title="消费记录读取失败" description={record.error.message} />
      ) : !r ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : (
        <Descriptions column={1} size="small" bordered>
          <Descriptions.Item label="任务">
            <Link to={taskPath(r.taskKind, r.taskId)} data-testid="consume-detail-task">
              {r.taskName}
            </Link>
            <div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {TASK_KIND_LABELS[r.taskKind] ?? r.taskKind} · <span style={{ fontFamily: MONO }}>{r.taskId}</span>
              </Typography.Text>
            </div>
          </Descriptions.Item>
          <Descriptions.Item label="日期">{r.day}</Descriptions.Item>
          <Descriptions.Item label="计量时段">
            {formatTime(r.startTime)} 至 {formatTime(r.endTime)}
          </Descriptions.Item>
          <Descriptions.Item label="算力分中心">{r.subCenterName}</Descriptions.Item>
          <Descriptions.Item label="卡型">{r.cardTypeName}</Descriptions.Item>
          <Descriptions.Item label="计费卡数">
            <span data-testid="consume-detail-cards">
              {r.billedCards} 卡（每节点 {r.cardNum === 0 ? '仅 CPU，按 1 卡计' : `${r.cardNum} 卡`} × {r.nodeNum} 节点）
            </span>
          </Descriptions.Item>
          <Descriptions.Item label="消耗卡时">
            <span data-testid="consume-detail-hours">{r.cardHours}</span>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {' '}
              （{r.cardSeconds} 卡秒）
            </Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label="最近计量">{formatTime(r.updateTime)}</Descriptions.Item>
        </Descriptions>
      )}
    </Drawer>
  );
}
