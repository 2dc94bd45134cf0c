import { CustomerServiceOutlined } from '@ant-design/icons';
import type { WorkOrderType } from '@suanli/contracts';
import { Typography } from 'antd';
import { Link } from 'react-router';

/**
 * 工单系统 with its 新建工单 dialog open on a problem type (and the task it is about): where a page sends a
 * user who is stuck (a failed task, a payment), so they need not find the avatar menu first.
 */
export function workorderHelpPath(type: WorkOrderType, taskId?: string): string {
  const q = new URLSearchParams({ new: type });
  if (taskId) q.set('taskId', taskId);
  return `/workorder?${q.toString()}`;
}

/** One secondary line: what to do when stuck, and the link that opens a work order about it. */
export function HelpLink({ type, taskId, text, testId }: { type: WorkOrderType; taskId?: string; text: string; testId: string }) {
  return (
    <Typography.Text type="secondary" data-testid={testId}>
      {text}
      <Link to={workorderHelpPath(type, taskId)} style={{ marginInlineStart: 4, whiteSpace: 'nowrap' }} data-testid={`${testId}-link`}>
        <CustomerServiceOutlined /> 提交工单
      </Link>
    </Typography.Text>
  );
}
