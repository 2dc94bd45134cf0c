import { useQuery } from '@tanstack/react-query';
import { Alert, Descriptions, Drawer, Skeleton, Typography } from 'antd';
import { Link } from 'react-router';
import { useCompPowers } from '../../app/comp-power';
import { queryKeys } from '../../app/query-keys';
import { useUserStore } from '../../app/stores/user-store';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { formatTime } from '../../shared/time';
import { MONO } from '../../shared/ui/mono';
import { getChargeRecord } from './api';
import { CHANNEL_LABELS } from '../order/order-view';

/**
 * One charge record (充值记录详情): the payment and what it bought — the compute bucket it made, with what is
 * left of it now (from the header's compute-power answer; absent once used up or expired).
 */
export function ChargeDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const screens = useBreakpoint();
  const record = useQuery({ queryKey: queryKeys.billing.charge(id ?? ''), queryFn: () => getChargeRecord(id!), enabled: Boolean(id) });
  const userId = useUserStore((s) => s.userInfo?.id);
  const powers = useCompPowers(userId);
  const r = record.data;
  const bucket = r ? powers.data?.items.find((b) => b.id === r.compPowerId) : undefined;
  return (
    <Drawer open={Boolean(id)} onClose={onClose} title="充值记录详情" size={screens.sm ? 480 : '100%'} destroyOnHidden data-testid="charge-detail">
      {record.isError ? (
        <Alert type="error" showIcon title="充值记录读取失败" description={record.error.message} />
      ) : !r ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : (
        <Descriptions column={1} size="small" bordered>
          <Descriptions.Item label="充值时间">{formatTime(r.createTime)}</Descriptions.Item>
          <Descriptions.Item label="订单编号">
            <Typography.Text copyable style={{ fontFamily: MONO, whiteSpace: 'nowrap' }} data-testid="charge-detail-order-no">
              {r.orderNo}
            </Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label="算力分中心">{r.subCenterName}</Descriptions.Item>
          <Descriptions.Item label="卡型">{r.cardTypeName}</Descriptions.Item>
          <Descriptions.Item label="卡时">{r.cardHours}</Descriptions.Item>
          <Descriptions.Item label="金额（元）">{r.amount}</Descriptions.Item>
          <Descriptions.Item label="支付方式">{CHANNEL_LABELS[r.payChannel]}</Descriptions.Item>
          <Descriptions.Item label="这份算力">
            {bucket ? (
              <span data-testid="charge-detail-bucket">
                剩余 {bucket.remaining} / {bucket.granted} 卡时，{formatTime(bucket.expireTime)} 到期
              </span>
            ) : (
              <Typography.Text type="secondary">已用完或已过期</Typography.Text>
            )}
          </Descriptions.Item>
          <Descriptions.Item label="订单">
            <Link to="/order">查看订单明细</Link>
          </Descriptions.Item>
        </Descriptions>
      )}
    </Drawer>
  );
}
