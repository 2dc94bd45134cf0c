import { ThunderboltOutlined } from '@ant-design/icons';
import type { CompPowers } from '@suanli/contracts';
import { Tooltip } from 'antd';
import { COMP_POWER_URL } from '../config';
import styles from './header.module.css';

interface CompPowerIndicatorProps {
  total: string | undefined;
  items: CompPowers['items'];
  compact: boolean;
}

function breakdown(items: CompPowers['items']) {
  if (items.length === 0)
    return (
      <div>
        <span>暂无可用算力，点击了解如何获取算力</span>
        <div>
          <a href="/pay" data-testid="header-buy-power">
            购买算力
          </a>
        </div>
      </div>
    );
  return (
    <div>
      {items.map((item) => (
        <div key={item.id}>
          {item.subCenterName} · {item.cardTypeName}：{item.remaining} 卡时
        </div>
      ))}
      <div>点击查看算力说明</div>
      <a href="/pay" data-testid="header-buy-power">
        购买算力
      </a>
    </div>
  );
}

/**
 * Remaining personal compute power in 卡时, with the per-center breakdown on hover; a link to where compute
 * is obtained (`COMP_POWER_URL`).
 */
export function CompPowerIndicator({ total, items, compact }: CompPowerIndicatorProps) {
  const value = total ?? '--';
  return (
    <Tooltip title={breakdown(items)}>
      <a
        href={COMP_POWER_URL}
        target="_blank"
        rel="noopener noreferrer"
        className={`${styles.action} ${styles.power}`}
        data-testid="header-comp-power"
        data-value={total ?? ''}
      >
        <ThunderboltOutlined />
        {compact ? null : <span>剩余算力</span>}
        <span className={styles.powerValue}>{value}</span>
        <span>卡时</span>
      </a>
    </Tooltip>
  );
}
