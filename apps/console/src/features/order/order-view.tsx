import type { OrderStatus, PayChannel } from '@suanli/contracts';
import { Tag } from 'antd';
import { useEffect, useState } from 'react';

export const STATUS_LABELS: Record<OrderStatus, string> = { UNPAID: '待支付', PAID: '已支付', CANCELLED: '已取消', CLOSED: '已关闭' };
const STATUS_COLORS: Record<OrderStatus, string> = { UNPAID: 'orange', PAID: 'green', CANCELLED: 'default', CLOSED: 'default' };
export const CHANNEL_LABELS: Record<PayChannel, string> = { alipay: '支付宝', offline: '线下转账' };

export function OrderStatusTag({ status }: { status: OrderStatus }) {
  return (
    <Tag color={STATUS_COLORS[status]} style={{ marginInlineEnd: 0 }} data-testid="order-status">
      {STATUS_LABELS[status]}
    </Tag>
  );
}

/** Time left until an unpaid order closes, as 「mm 分 ss 秒」; 已超时 once past. */
export function Countdown({ until }: { until: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, until - now);
  if (left === 0) return <span data-testid="order-countdown">已超时</span>;
  const total = Math.floor(left / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return (
    <span data-testid="order-countdown">
      {h > 0 ? `${h} 小时 ` : ''}
      {m} 分 {String(s).padStart(2, '0')} 秒
    </span>
  );
}
