import { ThunderboltOutlined } from '@ant-design/icons';
import type { CompPowers } from '@suanli/contracts';
import { Tooltip } from 'antd';
import styles from './header.module.css';

interface CompPowerIndicatorProps {
  total: string | undefined;
  items: CompPowers['items'];
  compact: boolean;
}

function breakdown(items: CompPowers['items']) {
  if (items.length === 0) return '暂无可用算力，购买算力卡后即可提交任务';
  return (
    <div>
      {items.map((item) => (
        <div key={item.id}>
          {item.subCenterName} · {item.cardTypeName}：{item.remaining} 卡时
        </div>
      ))}
    </div>
  );
}

/** Remaining personal compute power in 卡时, with the per-center breakdown on hover. */
export function CompPowerIndicator({ total, items, compact }: CompPowerIndicatorProps) {
  const value = total ?? '--';
  return (
    <Tooltip title={breakdown(items)}>
      <span className={`${styles.action} ${styles.power}`} data-testid="header-comp-power" data-value={total ?? ''}>
        <ThunderboltOutlined />
        {compact ? null : <span>剩余算力</span>}
        <span className={styles.powerValue}>{value}</span>
        <span>卡时</span>
      </span>
    </Tooltip>
  );
}
